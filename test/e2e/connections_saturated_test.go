package e2e_test

import (
	"context"
	"math"
	"strconv"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/collector"
)

// saturatedMaxConnections is the cluster's max_connections in
// TestConnectionsSaturated: small, so that saturating it takes a handful
// of real sessions.
const saturatedMaxConnections = 20

// TestConnectionsSaturated runs a cluster with max_connections 20 (set
// through postgresqlConfig, so it also shows the parameter reaches the
// server) and opens real sessions as the superuser until the collector's
// count reaches 90 % of it: ConnectionsSaturated turns True with a
// Warning within two intervals, and clears once the sessions close.
func TestConnectionsSaturated(t *testing.T) {
	ns := kit.Namespace(t)
	op := startOperator(t, "saturated-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap,
		"--postgres-sample-interval", sampleInterval.String())
	class := "e2e-" + ns
	// Superuser access on: the test opens its sessions as postgres.
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15), SuperuserAccess: ptr.To(true)})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{
		PostgreSQLConfig: map[string]string{"max_connections": strconv.Itoa(saturatedMaxConnections)},
	}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	// The collector reads max_connections from the server: once it
	// reports 20, the parameter is in force (the stand-in restarts
	// Postgres for it, as CNPG does).
	kit.Until(t, 60*time.Second, "max_connections applied and sampled", func(context.Context) (bool, error) {
		return op.metric(t, "setpoint_postgres_max_connections", "namespace", ns, "postgrescluster", "shop") == saturatedMaxConnections, nil
	})
	if c := cluster(t, ns, "shop"); meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionConnectionsSaturated) != nil {
		t.Fatalf("ConnectionsSaturated on an idle cluster: %+v", c.Status.Conditions)
	}

	// The collector's own session counts too: with it, this many test
	// sessions reach 90 % and leave one slot free for the operator.
	open := int(math.Ceil(collector.SaturatedAt * saturatedMaxConnections))
	var sessions []*pgx.Conn
	for len(sessions) < open {
		sessions = append(sessions, connectSuperuser(t, ns, "shop"))
	}
	c := waitCondition(t, ns, "shop", pgv1.ConditionConnectionsSaturated, metav1.ConditionTrue, withinTwoSamples)
	if h := c.Status.Postgres; h == nil || h.MaxConnections != saturatedMaxConnections || int(h.Connections) < open {
		t.Errorf("status.postgres with the edge = %+v, want maxConnections %d and at least %d connections",
			h, saturatedMaxConnections, open)
	}
	if c.Status.Phase != pgv1.PhaseReady {
		t.Errorf("saturated connections changed the phase to %s", c.Status.Phase)
	}
	expectEvent(t, ns, "shop", "Warning", pgv1.ConditionConnectionsSaturated)
	if v := op.metric(t, "setpoint_postgres_connections_in_use", "namespace", ns, "postgrescluster", "shop"); int(v) < open {
		t.Errorf("setpoint_postgres_connections_in_use = %v, want at least %d", v, open)
	}

	for _, s := range sessions {
		if err := s.Close(t.Context()); err != nil {
			t.Fatalf("close session: %v", err)
		}
	}
	c = waitCondition(t, ns, "shop", pgv1.ConditionConnectionsSaturated, metav1.ConditionFalse, withinTwoSamples)
	if cond := meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionConnectionsSaturated); cond.Reason != "ConnectionsAvailable" {
		t.Errorf("ConnectionsSaturated cleared with reason %s, want ConnectionsAvailable", cond.Reason)
	}
	expectEvent(t, ns, "shop", "Normal", "ConnectionsAvailable")
}

func cluster(t *testing.T, ns, name string) *pgv1.PostgresCluster {
	t.Helper()
	c, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get cluster: %v", err)
	}
	return c
}
