// Command reasonsdoc writes docs/reference/reasons.md, the reference of
// every condition type, status reason and Event reason setpoint writes,
// from the constants of pkg/apis/postgres/v1alpha1 and their comments.
// It reads the source only (go/parser), so the table says what the code
// declares and nothing else; `make docs` runs it and
// hack/verify-docs.sh fails when the committed page is stale.
package main

import (
	"flag"
	"fmt"
	"os"
)

func main() {
	api := flag.String("api", "pkg/apis/postgres/v1alpha1", "the API package's directory")
	out := flag.String("out", "docs/reference/reasons.md", "the page to write")
	flag.Parse()
	if err := run(*api, *out); err != nil {
		fmt.Fprintf(os.Stderr, "reasonsdoc: %v\n", err)
		os.Exit(1)
	}
}

func run(api, out string) error {
	sections, err := parseDir(api)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, []byte(render(sections)), 0o644); err != nil {
		return fmt.Errorf("write %s: %w", out, err)
	}
	return nil
}
