package release

import (
	"fmt"
	"os"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

// The release's monitoring files: the chart's alerting rules as a
// PrometheusRule beside install.yaml (the chart renders the same with
// prometheusRule.enabled), and its Grafana dashboard.
const (
	PrometheusRuleFile = "prometheusrule.yaml"
	DashboardFile      = "grafana-dashboard.json"
)

// monitoringSources are the chart's files the two are made from.
var (
	alertsSource    = filepath.Join("charts", "setpoint", "files", "alerts.yaml")
	dashboardSource = filepath.Join("charts", "setpoint", "files", "dashboard.json")
)

// WriteMonitoring writes PrometheusRuleFile and DashboardFile into out.
func WriteMonitoring(root, out string) ([]string, error) {
	alerts, err := os.ReadFile(filepath.Join(root, alertsSource))
	if err != nil {
		return nil, err
	}
	var spec map[string]any
	if err := yaml.Unmarshal(alerts, &spec); err != nil {
		return nil, fmt.Errorf("%s: %w", alertsSource, err)
	}
	rule, err := yaml.Marshal(map[string]any{
		"apiVersion": "monitoring.coreos.com/v1",
		"kind":       "PrometheusRule",
		"metadata": map[string]any{
			"name": "setpoint", "namespace": "setpoint-system",
			"labels": map[string]any{"app.kubernetes.io/name": "setpoint"},
		},
		"spec": spec,
	})
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(out, PrometheusRuleFile), rule, 0o644); err != nil {
		return nil, err
	}
	dashboard, err := os.ReadFile(filepath.Join(root, dashboardSource))
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(out, DashboardFile), dashboard, 0o644); err != nil {
		return nil, err
	}
	return []string{PrometheusRuleFile, DashboardFile}, nil
}
