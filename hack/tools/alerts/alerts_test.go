package alerts

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/prometheus/model/rulefmt"
)

// root is the repository's root, from this package's directory.
var root = filepath.Join("..", "..", "..")

func read(t *testing.T, rel string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, rel))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func reference(t *testing.T) Reference {
	t.Helper()
	ref, err := ParseReference(read(t, ReferenceFile))
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func rules(t *testing.T) *rulefmt.RuleGroups {
	t.Helper()
	groups, err := ParseRules(read(t, RulesFile))
	if err != nil {
		t.Fatal(err)
	}
	return groups
}

// The rules parse as Prometheus parses them, and every metric and label
// they name is one the operator exports (the generated reference).
func TestRulesNameOnlyWhatTheOperatorExports(t *testing.T) {
	groups := rules(t)
	if n := len(Alerts(groups)); n < 9 {
		t.Fatalf("%d alerts, want the 9 of docs/guides/monitoring.md", n)
	}
	for _, err := range CheckRules(groups, reference(t)) {
		t.Error(err)
	}
}

// Every alert's runbook_url points at a section of the monitoring guide
// that exists, named after the alert.
func TestEveryAlertHasARunbook(t *testing.T) {
	guide := string(read(t, filepath.Join("docs", "guides", "monitoring.md")))
	for _, r := range Alerts(rules(t)) {
		anchor := strings.ToLower(r.Alert)
		if want := "docs/guides/monitoring.md#" + anchor; !strings.HasSuffix(r.Annotations["runbook_url"], want) {
			t.Errorf("%s: runbook_url %q, want …%s", r.Alert, r.Annotations["runbook_url"], want)
		}
		if !regexp.MustCompile(`(?m)^#{2,4} ` + regexp.QuoteMeta(r.Alert) + `$`).MatchString(guide) {
			t.Errorf("%s: no section %q in docs/guides/monitoring.md", r.Alert, r.Alert)
		}
	}
}

// Every panel and variable of the dashboard names only what the operator
// exports.
func TestDashboardNamesOnlyWhatTheOperatorExports(t *testing.T) {
	d, err := ParseDashboard(read(t, DashboardFile))
	if err != nil {
		t.Fatal(err)
	}
	if d.UID == "" || d.Title == "" {
		t.Errorf("dashboard without uid or title: %q %q", d.UID, d.Title)
	}
	for _, err := range CheckDashboard(d, reference(t)) {
		t.Error(err)
	}
}

// The check is not vacuous: a metric, a label, a grouping label or a
// template label the operator does not export is each refused.
func TestCheckRefusesWhatTheOperatorDoesNotExport(t *testing.T) {
	ref := reference(t)
	for _, expr := range []string{
		`setpoint_cluster_status_phase{phase="Ready"} == 0`, // accepted: the control
		`setpoint_clusters_not_ready > 0`,
		`setpoint_postgres_used_bytes{cluster="shop"} > 0`,
		`max by (cluster) (setpoint_postgres_used_bytes) > 0`,
		`setpoint_postgres_used_bytes / on (pod) setpoint_postgres_storage_size_bytes`,
		`setpoint_postgres_connections_total > 0`, // the name before the rename
		`{__name__=~"setpoint_.+"}`,
	} {
		_, err := CheckExpr(expr, ref)
		if control := strings.HasPrefix(expr, "setpoint_cluster_status_phase"); control != (err == nil) {
			t.Errorf("CheckExpr(%s) = %v", expr, err)
		}
	}
	groups, err := ParseRules([]byte(`groups:
- name: g
  rules:
  - alert: A
    expr: setpoint_postgres_used_bytes > 0
    annotations: {summary: "{{ $labels.cluster }}", runbook_url: x}
`))
	if err != nil {
		t.Fatal(err)
	}
	if errs := CheckRules(groups, ref); len(errs) != 1 || !strings.Contains(errs[0].Error(), `"cluster"`) {
		t.Errorf("an annotation naming a label not exported: %v", errs)
	}
	d := Dashboard{Title: "d", Panels: []Panel{{Title: "p", Targets: []Target{{Expr: "sum(rate(setpoint_reconcile_total[$__rate_interval]))", LegendFormat: "{{outcome}}"}}}}}
	if errs := CheckDashboard(d, ref); len(errs) != 1 || !strings.Contains(errs[0].Error(), `"outcome"`) {
		t.Errorf("a legend naming a label summed away is not caught: %v", errs)
	}
}

// Evaluate stores a scrape with Prometheus' parser and TSDB and runs the
// rules with its engine (the states of a real operator are the e2e
// tier's TestAlertsOnOperatorScrapes).
func TestEvaluateRunsTheEngine(t *testing.T) {
	at := time.Unix(1_800_000_000, 0)
	scrape := func(leading string) []Scrape {
		return []Scrape{{At: at, Body: "# TYPE setpoint_leader_election_leading gauge\nsetpoint_leader_election_leading{lease=\"setpoint\"} " + leading + "\n"}}
	}
	for leading, fires := range map[string]bool{"0": true, "1": false} {
		got, err := Evaluate(t.Context(), rules(t), scrape(leading))
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := got["SetpointNoLeader"]; ok != fires {
			t.Errorf("leading %s: SetpointNoLeader returns %v, want firing %v", leading, got["SetpointNoLeader"], fires)
		}
	}
}
