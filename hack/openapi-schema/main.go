// Command openapi-schema prints, as OpenAPI v2 JSON, the schema definitions
// generated into pkg/generated/openapi. hack/update-codegen.sh feeds it to
// applyconfiguration-gen so that the fake clientset can serve server-side
// apply for our types and the CNPG subset.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/validation/spec"

	"github.com/setpoint-dev/setpoint/pkg/generated/openapi"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "openapi-schema: %v\n", err)
		os.Exit(1)
	}
}

func run() error {
	ref := func(name string) spec.Ref { return spec.MustCreateRef("#/definitions/" + name) }
	defs := openapi.GetOpenAPIDefinitions(ref)
	schemas := make(map[string]spec.Schema, len(defs))
	for name, def := range defs {
		// Prefer an embedded v2 schema so the output is always OpenAPI v2.
		if v2, ok := def.Schema.Extensions[common.ExtensionV2Schema].(spec.Schema); ok {
			schemas[name] = v2
			continue
		}
		schemas[name] = def.Schema
	}
	out, err := json.Marshal(&spec.Swagger{SwaggerProps: spec.SwaggerProps{
		Swagger:     "2.0",
		Definitions: schemas,
		Info:        &spec.Info{InfoProps: spec.InfoProps{Title: "setpoint", Version: "unversioned"}},
	}})
	if err != nil {
		return fmt.Errorf("serialise definitions: %w", err)
	}
	_, err = os.Stdout.Write(out)
	return err
}
