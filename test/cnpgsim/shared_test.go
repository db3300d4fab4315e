package cnpgsim_test

import (
	"strings"
	"testing"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

func sharedCluster(t *testing.T, ns, name, role string) {
	t.Helper()
	basicAuth(t, ns, secretName(role), role, "pw-"+role)
	newCluster(t, ns, name, func(c *cnpgv1.Cluster) {
		c.Labels = map[string]string{sharedLabel: "true"}
		c.Spec.Managed = &cnpgv1.ManagedConfiguration{Roles: []cnpgv1.RoleConfiguration{{
			Name: role, Login: boolPtr(true), PasswordSecret: &cnpgv1.LocalObjectReference{Name: secretName(role)},
		}}}
	})
}

func TestSharedBackend(t *testing.T) {
	ns1, ns2 := newNamespace(t), newNamespace(t)
	sharedCluster(t, ns1, "alpha", "alpha_app")
	sharedCluster(t, ns2, "beta", "beta_app")
	waitHealthy(t, ns1, "alpha")
	waitHealthy(t, ns2, "beta")
	for _, d := range []struct{ ns, cluster, db, owner string }{{ns1, "alpha", "alpha_db", "alpha_app"}, {ns2, "beta", "beta_db", "beta_app"}} {
		newDatabase(t, d.ns, d.cluster+"-db", d.cluster, d.db, d.owner, "delete", sharedDatabase)
	}

	if a, b := sharedSim.Addr(ns1, "alpha"), sharedSim.Addr(ns2, "beta"); a == "" || a != b {
		t.Fatalf("addresses %q and %q: want one shared server", a, b)
	}
	if sim.Addr(ns1, "alpha") != "" {
		t.Fatal("the dedicated Simulator also serves a shared Cluster")
	}
	hm := sharedSim.HostMap()
	for _, c := range []struct{ ns, name, role string }{{ns1, "alpha", "alpha_app"}, {ns2, "beta", "beta_app"}} {
		// Each Cluster's own CA and Service name verify, and its role logs in.
		got, err := query[string](t, hm, c.ns, c.name, c.role, "pw-"+c.role, "postgres", "SELECT current_user::text")
		if err != nil || got != c.role {
			t.Errorf("%s as %s: %q, %v", c.name, c.role, got, err)
		}
		waitDatabase(t, c.ns, c.name+"-db", true, "")
	}
	// One server: beta's database is visible through alpha's Service.
	n, err := query[int64](t, hm, ns1, "alpha", "postgres", "any password: trusted in shared mode", "postgres",
		"SELECT count(*) FROM pg_database WHERE datname IN ('alpha_db', 'beta_db')")
	if err != nil || n != 2 {
		t.Errorf("databases on the shared server: %d, %v", n, err)
	}
}

func secretName(role string) string { return strings.ReplaceAll(role, "_", "-") + "-pw" }
