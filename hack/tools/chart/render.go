package chart

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strings"

	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/chart/common/util"
	chartv2 "helm.sh/helm/v4/pkg/chart/v2"
	"helm.sh/helm/v4/pkg/chart/v2/loader"
	"helm.sh/helm/v4/pkg/engine"
	kyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// Chart is a loaded chart.
type Chart = chartv2.Chart

// Object is one rendered manifest, decoded.
type Object = map[string]any

// Load reads the chart in dir.
func Load(dir string) (*Chart, error) {
	c, err := loader.Load(dir)
	if err != nil {
		return nil, fmt.Errorf("load chart %s: %w", dir, err)
	}
	return c, nil
}

// Render renders c as `helm install NAME --namespace NAMESPACE` would, with
// values over the chart's defaults (checked against values.schema.json),
// and returns its objects: those of a crds/ directory first (setpoint's
// chart has none: its CRDs are templates), then every template's, in the
// order of the template names.
func Render(c *chartv2.Chart, name, namespace string, values map[string]any) ([]Object, error) {
	opts := common.ReleaseOptions{Name: name, Namespace: namespace, Revision: 1, IsInstall: true}
	vals, err := util.ToRenderValues(c, values, opts, common.DefaultCapabilities)
	if err != nil {
		return nil, fmt.Errorf("values: %w", err)
	}
	files, err := engine.Render(c, vals)
	if err != nil {
		return nil, fmt.Errorf("render: %w", err)
	}
	var out []Object
	for _, crd := range c.CRDObjects() {
		objs, err := Decode(crd.File.Data)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", crd.Name, err)
		}
		out = append(out, objs...)
	}
	names := make([]string, 0, len(files))
	for n := range files {
		// NOTES.txt and partials render too; only manifests are objects.
		if ext := path.Ext(n); ext == ".yaml" || ext == ".yml" {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		objs, err := Decode([]byte(files[n]))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", n, err)
		}
		out = append(out, objs...)
	}
	return out, nil
}

// Decode splits multi-document YAML (a template's output, install.yaml)
// into objects, skipping empty ones (a template switched off renders
// nothing).
func Decode(data []byte) ([]Object, error) {
	d := kyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	var out []Object
	for {
		var o Object
		if err := d.Decode(&o); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		if len(o) != 0 {
			out = append(out, o)
		}
	}
}

// KeyOf names an object by kind, namespace and name.
func KeyOf(o Object) string {
	md, _ := o["metadata"].(map[string]any)
	ns, _ := md["namespace"].(string)
	name, _ := md["name"].(string)
	kind, _ := o["kind"].(string)
	return strings.Join([]string{kind, ns, name}, "/")
}
