// Package alerts checks setpoint's alerting rules and Grafana dashboard
// (charts/setpoint/files) with Prometheus' own code, kept out of the
// operator's module: the rules are read by rulefmt, every expression by
// promql/parser, and every metric and label they name must be one the
// operator exports, as the generated docs/reference/metrics.md lists them.
// Evaluate runs the alerts' expressions with Prometheus' promql engine on
// scrapes of the operator's /metrics (cmd/alertcheck, driven by the e2e
// tier's TestAlertsOnOperatorScrapes).
package alerts
