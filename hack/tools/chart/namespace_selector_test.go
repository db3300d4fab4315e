package chart_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/setpoint-dev/setpoint/hack/tools/chart"
)

// watchNamespaceSelector adds list and watch on Namespaces and nothing
// more, in either install mode, and passes the flag: namespaced (the
// default) is a namespace-scoped install with ClusterRole <name>-tenant,
// the namespaced Role's rules, for a RoleBinding in each selected
// namespace; cluster keeps the cluster-wide ClusterRole and adds no tenant
// role. cluster beside watchNamespaces is refused.
func TestWatchNamespaceSelector(t *testing.T) {
	roleRules := namespacedRoleRules(t)
	for _, tc := range []struct {
		name    string
		sel     map[string]any
		present []string
		absent  []string
	}{
		{"namespaced", map[string]any{"selector": "tier in (gold,silver)"},
			[]string{"ClusterRole//setpoint-namespaced", "ClusterRole//setpoint-tenant"},
			[]string{"ClusterRole//setpoint", "ClusterRoleBinding//setpoint", "ClusterRoleBinding//setpoint-tenant"}},
		{"cluster", map[string]any{"selector": "tier in (gold,silver)", "rbac": "cluster"},
			[]string{"ClusterRole//setpoint", "ClusterRoleBinding//setpoint"},
			[]string{"ClusterRole//setpoint-namespaced", "ClusterRole//setpoint-tenant"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			values := map[string]any{"watchNamespaceSelector": tc.sel}
			got := render(t, values)
			reader := got["ClusterRole//setpoint-namespace-reader"]
			if reader == nil || got["ClusterRoleBinding//setpoint-namespace-reader"] == nil {
				t.Fatal("no namespace reader")
			}
			if s := fmt.Sprint(reader["rules"]); s != "[map[apiGroups:[] resources:[namespaces] verbs:[list watch]]]" {
				t.Errorf("the namespace reader grants %s, want list and watch on namespaces only", s)
			}
			for _, k := range tc.present {
				if got[k] == nil {
					t.Errorf("no %s", k)
				}
			}
			for _, k := range tc.absent {
				if got[k] != nil {
					t.Errorf("renders %s", k)
				}
			}
			if tenant := got["ClusterRole//setpoint-tenant"]; tenant != nil && !reflect.DeepEqual(tenant["rules"], roleRules) {
				t.Errorf("ClusterRole setpoint-tenant has rules\n%v\nwant overlays/namespaced's Role's\n%v", tenant["rules"], roleRules)
			}
			ctr := got["Deployment/"+namespace+"/setpoint"]["spec"].(map[string]any)["template"].(map[string]any)["spec"].(map[string]any)["containers"].([]any)[0].(map[string]any)
			if args := toStrings(ctr["args"]); !slices.Contains(args, "--watch-namespace-selector=tier in (gold,silver)") {
				t.Errorf("args %v lack the selector", args)
			}
			if err := chart.Lint(chartDir, namespace, values); err != nil {
				t.Error(err)
			}
		})
	}
	for _, k := range []string{"ClusterRole//setpoint-namespace-reader", "ClusterRole//setpoint-tenant"} {
		if render(t, nil)[k] != nil {
			t.Errorf("the default install renders %s", k)
		}
	}
	_, err := chart.Render(load(t), "setpoint", namespace, map[string]any{"watchNamespaces": []any{"a"},
		"watchNamespaceSelector": map[string]any{"selector": "tenant", "rbac": "cluster"}})
	if err == nil || !strings.Contains(err.Error(), "cannot go beside watchNamespaces") {
		t.Errorf("rbac=cluster beside watchNamespaces: %v, want refused", err)
	}
}
