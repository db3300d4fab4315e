package chart_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	monitoringv1 "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/hack/tools/chart"
	"github.com/setpoint-dev/setpoint/hack/tools/release"
)

// prometheusRule.enabled renders files/alerts.yaml (helm lint finds
// nothing) as a PrometheusRule the Prometheus Operator reads (strictly decoded into its own type), with
// prometheusRule.labels added; off by default; and the release's
// prometheusrule.yaml carries the same rules.
func TestPrometheusRule(t *testing.T) {
	for k, o := range render(t, nil) {
		if o["kind"] == "PrometheusRule" {
			t.Errorf("%s rendered with default values", k)
		}
	}
	values := map[string]any{"prometheusRule": map[string]any{
		"enabled": true, "labels": map[string]any{"release": "kube-prometheus-stack"},
	}}
	if err := chart.Lint(chartDir, namespace, values); err != nil {
		t.Error(err)
	}
	objs := render(t, values)
	var rendered *monitoringv1.PrometheusRule
	for _, o := range objs {
		if o["kind"] == "PrometheusRule" {
			rendered = decodeRule(t, o)
		}
	}
	if rendered == nil {
		t.Fatal("no PrometheusRule with prometheusRule.enabled")
	}
	if rendered.Namespace != namespace || rendered.Labels["release"] != "kube-prometheus-stack" || rendered.Labels["app.kubernetes.io/name"] != "setpoint" {
		t.Errorf("PrometheusRule %s/%s labels %v", rendered.Namespace, rendered.Name, rendered.Labels)
	}
	source, err := os.ReadFile(filepath.Join(chartDir, "files", "alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var want monitoringv1.PrometheusRuleSpec
	if err := yaml.UnmarshalStrict(source, &want); err != nil {
		t.Fatal(err)
	}
	if len(want.Groups) == 0 || !reflect.DeepEqual(rendered.Spec, want) {
		t.Errorf("rendered rules differ from files/alerts.yaml:\n%+v\n%+v", rendered.Spec, want)
	}

	out := t.TempDir()
	if _, err := release.WriteMonitoring(root, out); err != nil {
		t.Fatal(err)
	}
	shipped, err := os.ReadFile(filepath.Join(out, release.PrometheusRuleFile))
	if err != nil {
		t.Fatal(err)
	}
	var r monitoringv1.PrometheusRule
	if err := yaml.UnmarshalStrict(shipped, &r); err != nil {
		t.Fatal(err)
	}
	if r.Kind != "PrometheusRule" || r.Namespace != namespace || !reflect.DeepEqual(r.Spec, want) {
		t.Errorf("the release's %s differs from the chart's rules: %s/%s %+v", release.PrometheusRuleFile, r.Kind, r.Namespace, r.Spec)
	}
}

func decodeRule(t *testing.T, o map[string]any) *monitoringv1.PrometheusRule {
	t.Helper()
	b, err := yaml.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	var r monitoringv1.PrometheusRule
	if err := yaml.UnmarshalStrict(b, &r); err != nil {
		t.Fatalf("PrometheusRule: %v", err)
	}
	return &r
}
