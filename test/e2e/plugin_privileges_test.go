package e2e_test

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"k8s.io/cli-runtime/pkg/genericiooptions"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/kubectl/commands"
	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// plugin runs `kubectl setpoint ARGS` in process against namespace ns,
// its port-forward relayed through the stand-in's host map.
func plugin(t *testing.T, ns string, args ...string) (string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	o := &commands.Options{Streams: genericiooptions.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut},
		Forwarder: &testkit.HostMapForwarder{Hosts: postgres.NewHostMap(hostMap)}}
	root := commands.NewRoot(o)
	root.SetArgs(append([]string{args[0], "--kubeconfig", env.KubeconfigPath, "--namespace", ns}, args[1:]...))
	err := root.ExecuteContext(t.Context())
	return out.String() + errOut.String(), err
}

// pluginPrivileges is `kubectl setpoint privileges name -o json`.
func pluginPrivileges(t *testing.T, ns, name string) []inspect.Privileges {
	t.Helper()
	out, err := plugin(t, ns, "privileges", name, "-o", "json")
	if err != nil {
		t.Fatalf("kubectl setpoint privileges %s: %v\n%s", name, err, out)
	}
	var ps []inspect.Privileges
	if err := json.Unmarshal([]byte(out), &ps); err != nil {
		t.Fatalf("privileges -o json: %v\n%s", err, out)
	}
	return ps
}

// `kubectl setpoint privileges` on real Postgres: with the operator
// stopped (so nothing reverts it meanwhile), a privilege granted by hand
// and one revoked by hand show as differences, with what the next pass
// does; restarted, the operator does exactly that, and the plugin then
// finds every role holding what is declared and nothing to run.
func TestPluginShowsPrivilegeDifferences(t *testing.T) {
	ns := kit.Namespace(t)
	op := readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "plugged", "shop", pgv1.DatabaseSpec{Name: "shop", ReadOnlyRole: true,
		Schemas: []pgv1.SchemaSpec{{Name: "billing"}},
		Roles: []pgv1.DatabaseRoleSpec{{Name: "rw", Grants: []pgv1.Grant{
			{Object: pgv1.GrantOnSchema, Schema: "billing", Privileges: []pgv1.Privilege{"USAGE"}},
			{Object: pgv1.GrantOnTables, Schema: "billing", Privileges: []pgv1.Privilege{"SELECT"}},
		}}}})
	kit.WaitDatabase(t, ns, "plugged", pgv1.PhaseReady, 120*time.Second)
	waitPrivileges(t, ns, "plugged", pgv1.ReasonPrivilegesIsolated)
	admin := connectAs(t, ns, "plugged-shop-config", "plugged-shop-admin")
	execSQL(t, admin, "CREATE TABLE billing.invoices (id int)")
	// The table's grants come from the default privileges: converged.
	ps := pluginPrivileges(t, ns, "plugged")
	if len(ps) != 1 || !ps[0].Exact || ps[0].Statements != 0 || slices.ContainsFunc(ps[0].Roles, inspect.RolePrivilege.Differs) {
		t.Fatalf("converged: %+v, want exact, no statement, no role differing", ps)
	}

	op.signal(syscall.SIGTERM)
	<-op.done
	execSQL(t, admin, "GRANT UPDATE, TRUNCATE ON billing.invoices TO shop_rw")
	execSQL(t, admin, "REVOKE SELECT ON billing.invoices FROM shop_ro")

	ps = pluginPrivileges(t, ns, "plugged")
	line := func(role, on string) inspectLine {
		for _, r := range ps[0].Roles {
			if r.Role != role {
				continue
			}
			for _, l := range r.Lines {
				if l.On == on {
					return inspectLine{l.Declared, l.Held, l.Grant, l.Revoke}
				}
			}
		}
		t.Fatalf("no line for %s on %s in %+v", role, on, ps[0].Roles)
		return inspectLine{}
	}
	const inv = `TABLE "billing"."invoices"`
	if got, want := line("shop_rw", inv), (inspectLine{[]string{"SELECT"}, []string{"SELECT", "UPDATE", "TRUNCATE"}, nil, []string{"UPDATE", "TRUNCATE"}}); !got.equal(want) {
		t.Errorf("shop_rw on invoices: %+v, want %+v", got, want)
	}
	if got, want := line("shop_ro", inv), (inspectLine{[]string{"SELECT"}, nil, []string{"SELECT"}, nil}); !got.equal(want) {
		t.Errorf("shop_ro on invoices: %+v, want %+v", got, want)
	}
	if ps[0].Statements != 2 {
		t.Errorf("%d pending statements, want 2 (a grant, a revoke)", ps[0].Statements)
	}
	text, err := plugin(t, ns, "privileges", "plugged")
	if err != nil {
		t.Fatalf("privileges: %v\n%s", err, text)
	}
	for _, want := range []string{"0 of 2 role(s) hold what the spec declares; the next pass runs 2 statement(s).", "revoke UPDATE,TRUNCATE", "grant SELECT"} {
		if !strings.Contains(text, want) {
			t.Errorf("privileges output lacks %q:\n%s", want, text)
		}
	}

	// explain --privileges shows the same after the database's chain.
	text, err = plugin(t, ns, "explain", "plugged", "--privileges")
	if err != nil || !strings.Contains(text, "PostgresDatabase "+ns+"/plugged is Ready.") || !strings.Contains(text, "revoke UPDATE,TRUNCATE") {
		t.Errorf("explain --privileges: %v\n%s", err, text)
	}

	// Restarted, the operator runs what the plugin said.
	startOperator(t, "op2", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap, "--resync-period", "2s")
	waitPrivileges(t, ns, "plugged", pgv1.ReasonPrivilegesDriftReverted)
	ps = pluginPrivileges(t, ns, "plugged")
	if ps[0].Statements != 0 || slices.ContainsFunc(ps[0].Roles, inspect.RolePrivilege.Differs) {
		t.Errorf("after the operator's pass: %+v, want no statement, no role differing", ps)
	}
	ro := connectAs(t, ns, "plugged-shop-config", "plugged-shop-ro")
	sqlAs(t, "ro", ro, "", "SELECT * FROM billing.invoices")
}

// inspectLine is the part of a line the test compares.
type inspectLine struct{ declared, held, grant, revoke []string }

func (a inspectLine) equal(b inspectLine) bool {
	return slices.Equal(a.declared, b.declared) && slices.Equal(a.held, b.held) && slices.Equal(a.grant, b.grant) && slices.Equal(a.revoke, b.revoke)
}
