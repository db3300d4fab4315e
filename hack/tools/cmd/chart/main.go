// Command chart renders setpoint's Helm chart as `helm template` does,
// with Helm's own Go SDK: the e2e tests install what it prints, so the
// chart is exercised on a real API server without a helm binary.
//
//	go run ./cmd/chart -chart ../../charts/setpoint -namespace setpoint-system -values '{"watchNamespaces":["a"]}'
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"

	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/hack/tools/chart"
)

func main() {
	dir := flag.String("chart", "charts/setpoint", "the chart's directory or .tgz")
	name := flag.String("name", "setpoint", "release name")
	namespace := flag.String("namespace", "setpoint-system", "release namespace")
	values := flag.String("values", "{}", "values as a JSON object, over the chart's defaults")
	skipCRDs := flag.Bool("skip-crds", false, "leave out the CustomResourceDefinitions (templates/crds.yaml)")
	flag.Parse()
	if err := run(*dir, *name, *namespace, *values, *skipCRDs); err != nil {
		fmt.Fprintf(os.Stderr, "chart: %v\n", err)
		os.Exit(1)
	}
}

func run(dir, name, namespace, values string, skipCRDs bool) error {
	var vals map[string]any
	if err := json.Unmarshal([]byte(values), &vals); err != nil {
		return fmt.Errorf("-values: %w", err)
	}
	c, err := chart.Load(dir)
	if err != nil {
		return err
	}
	objs, err := chart.Render(c, name, namespace, vals)
	if err != nil {
		return err
	}
	var docs []string
	for _, o := range objs {
		if skipCRDs && o["kind"] == "CustomResourceDefinition" {
			continue
		}
		b, err := yaml.Marshal(o)
		if err != nil {
			return err
		}
		docs = append(docs, string(b))
	}
	_, err = fmt.Print(strings.Join(docs, "---\n"))
	return err
}
