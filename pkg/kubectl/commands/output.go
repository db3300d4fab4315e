package commands

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"
)

// outputFlag adds -o/--output: "" for people, json or yaml for scripts.
func outputFlag(cmd *cobra.Command, into *string) {
	cmd.Flags().StringVarP(into, "output", "o", "", "output format: json or yaml (default: text for people)")
}

// printStructured writes v as json or yaml; false when format asks for text.
func printStructured(w io.Writer, format string, v any) (bool, error) {
	switch format {
	case "":
		return false, nil
	case "json":
		b, err := json.MarshalIndent(v, "", "  ")
		if err != nil {
			return true, fmt.Errorf("encode json: %w", err)
		}
		_, err = fmt.Fprintln(w, string(b))
		return true, err
	case "yaml":
		b, err := yaml.Marshal(v)
		if err != nil {
			return true, fmt.Errorf("encode yaml: %w", err)
		}
		_, err = w.Write(b)
		return true, err
	}
	return true, fmt.Errorf("output format %q: want json or yaml", format)
}
