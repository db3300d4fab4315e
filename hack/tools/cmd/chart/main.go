// Command chart renders setpoint's Helm chart as `helm template` does,
// with Helm's own Go SDK: the e2e tests install what it prints, so the
// chart is exercised on a real API server without a helm binary. With
// -kubeconfig it runs `helm upgrade --install` on that cluster instead.
//
//	go run ./cmd/chart -chart ../../charts/setpoint -namespace setpoint-system -values '{"watchNamespaces":["a"]}'
//	go run ./cmd/chart -chart ../../charts/setpoint -kubeconfig ~/.kube/config
package main

import (
	"context"
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
	kubeconfig := flag.String("kubeconfig", "", "set: helm upgrade --install on this cluster instead of printing")
	kubeVersion := flag.String("kube-version", "", "with -kubeconfig: the cluster's Kubernetes version, for an API server that reports none")
	serverSide := flag.String("server-side", "auto", "with -kubeconfig: helm's --server-side (true, false, auto)")
	flag.Parse()
	var err error
	if *kubeconfig != "" {
		err = apply(*kubeconfig, *kubeVersion, *serverSide, *dir, *name, *namespace, *values)
	} else {
		err = run(*dir, *name, *namespace, *values, *skipCRDs)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "chart: %v\n", err)
		os.Exit(1)
	}
}

func load(dir, values string) (*chart.Chart, map[string]any, error) {
	var vals map[string]any
	if err := json.Unmarshal([]byte(values), &vals); err != nil {
		return nil, nil, fmt.Errorf("-values: %w", err)
	}
	c, err := chart.Load(dir)
	return c, vals, err
}

func apply(kubeconfig, kubeVersion, serverSide, dir, name, namespace, values string) error {
	c, vals, err := load(dir, values)
	if err != nil {
		return err
	}
	return chart.Apply(context.Background(), kubeconfig, kubeVersion, serverSide, c, name, namespace, vals)
}

func run(dir, name, namespace, values string, skipCRDs bool) error {
	c, vals, err := load(dir, values)
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
