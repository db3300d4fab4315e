package realcnpg

import (
	"slices"
	"testing"
	"time"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A parameter that needs a restart (max_connections) and one a reload
// takes (work_mem), changed on a Ready cluster: CNPG restarts Postgres,
// setpoint reports Configuring until Postgres has the values, then Ready,
// and Postgres shows them.
func TestParametersOnRealCNPG(t *testing.T) {
	ns := kit.Namespace(t)
	smallClass(t, "small-"+ns)
	createCluster(t, ns, "shop", "small-"+ns)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)

	phases := watchPhases(t, ns, "shop")
	kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) {
		c.Spec.PostgreSQLConfig = map[string]string{"max_connections": "150", "work_mem": "8MB"}
	})
	start := time.Now()
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 5*time.Minute)
	t.Logf("parameters applied, Ready again in %s", time.Since(start).Round(time.Second))
	seen := phases.clusterPhases()
	if !slices.Contains(seen, pgv1.PhaseConfiguring) {
		t.Errorf("PostgresCluster phases while CNPG restarted Postgres: %q, want Configuring among them", seen)
	}
	su := kit.ConnectAs(t, ns, "shop", "postgres", "shop-monitor") // setpoint_monitor: superuser access is off, as CNPG has it by default
	for param, want := range map[string]string{"max_connections": "150", "work_mem": "8MB"} {
		var got string
		if err := su.QueryRow(t.Context(), "SELECT current_setting($1)", param).Scan(&got); err != nil || got != want {
			t.Errorf("%s = %q (%v), want %q", param, got, err, want)
		}
	}
}
