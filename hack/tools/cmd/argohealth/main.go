// Command argohealth runs setpoint's Argo CD health script on objects, as
// Argo CD would (hack/tools/argocd): the e2e tier pipes the objects
// setpoint just wrote into it, so the script is judged on live status.
//
//	kubectl get postgresclusters,postgresdatabases -A -o json | go run ./cmd/argohealth
//
// It reads a JSON or YAML stream of objects (a List's items are taken one
// by one) and prints one JSON line per object: kind, namespace, name,
// status and message.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"

	kyaml "k8s.io/apimachinery/pkg/util/yaml"

	"github.com/setpoint-dev/setpoint/hack/tools/argocd"
)

func main() {
	script := flag.String("script", "../../manifests/argocd/resource_customizations/postgres.setpoint.dev/health.lua", "the health script")
	flag.Parse()
	if err := run(*script, os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "argohealth: %v\n", err)
		os.Exit(1)
	}
}

// Result is one object's health.
type Result struct {
	Kind      string `json:"kind"`
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	argocd.Health
}

func run(scriptPath string, in io.Reader, out io.Writer) error {
	script, err := os.ReadFile(scriptPath)
	if err != nil {
		return err
	}
	data, err := io.ReadAll(in)
	if err != nil {
		return err
	}
	d := kyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	enc := json.NewEncoder(out)
	for {
		var o map[string]any
		if err := d.Decode(&o); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		objs := []map[string]any{o}
		if items, ok := o["items"].([]any); ok {
			objs = objs[:0]
			for _, i := range items {
				if m, ok := i.(map[string]any); ok {
					objs = append(objs, m)
				}
			}
		}
		for _, obj := range objs {
			h, err := argocd.Run(string(script), obj)
			if err != nil {
				return err
			}
			md, _ := obj["metadata"].(map[string]any)
			r := Result{Health: h}
			r.Kind, _ = obj["kind"].(string)
			r.Namespace, _ = md["namespace"].(string)
			r.Name, _ = md["name"].(string)
			if err := enc.Encode(r); err != nil {
				return err
			}
		}
	}
}
