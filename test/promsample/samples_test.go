package promsample

import (
	"strings"
	"testing"
)

const exposition = `# HELP setpoint_reconcile_total Reconcile passes by queue and outcome.
# TYPE setpoint_reconcile_total counter
setpoint_reconcile_total{name="postgrescluster",outcome="success"} 7
setpoint_reconcile_total{name="postgrescluster",outcome="failed"} 2
setpoint_reconcile_total{name="postgresdatabase",outcome="success"} 1e+06
# HELP setpoint_api_requests_total Requests.
# TYPE setpoint_api_requests_total counter
setpoint_api_requests_total{code="Not Found",resource="secrets",verb="get"} 3
setpoint_api_requests_total{code="OK",resource="a\"b,c=d}",verb="get"} 4
# TYPE go_goroutines gauge
go_goroutines 42
# TYPE workqueue_queue_duration_seconds histogram
workqueue_queue_duration_seconds_bucket{name="postgrescluster",le="0.001"} 1
workqueue_queue_duration_seconds_bucket{name="postgrescluster",le="0.002"} 3
workqueue_queue_duration_seconds_bucket{name="postgrescluster",le="+Inf"} 4
workqueue_queue_duration_seconds_sum{name="postgrescluster"} 0.5
workqueue_queue_duration_seconds_count{name="postgrescluster"} 4
`

func TestParse(t *testing.T) {
	samples, err := Parse(strings.NewReader(exposition))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		match []string
		want  float64
	}{
		{"setpoint_reconcile_total", nil, 1000009},
		{"setpoint_reconcile_total", []string{"name", "postgrescluster"}, 9},
		{"setpoint_reconcile_total", []string{"name", "postgrescluster", "outcome", "failed"}, 2},
		{"setpoint_api_requests_total", []string{"code", "Not Found"}, 3},
		// Escaped quotes and separators inside a value are one value.
		{"setpoint_api_requests_total", []string{"resource", `a"b,c=d}`, "verb", "get"}, 4},
		{"go_goroutines", nil, 42},
		{"workqueue_queue_duration_seconds_bucket", []string{"le", "0.002"}, 3},
		{"workqueue_queue_duration_seconds_bucket", []string{"le", "+Inf"}, 4},
		{"workqueue_queue_duration_seconds_sum", nil, 0.5},
		{"workqueue_queue_duration_seconds_count", []string{"name", "postgrescluster"}, 4},
		{"no_such_metric", nil, 0},
	} {
		if got := Sum(samples, tc.name, tc.match...); got != tc.want {
			t.Errorf("Sum(%s, %v) = %v, want %v", tc.name, tc.match, got, tc.want)
		}
	}
	if n := len(samples); n != 11 {
		t.Errorf("%d samples, want 11: %v", n, samples)
	}
}

func TestParseRefusesMalformedText(t *testing.T) {
	if _, err := Parse(strings.NewReader("setpoint_reconcile_total{name=\"x\" 1\n")); err == nil {
		t.Error("a line with an unterminated label set parsed without error")
	}
}
