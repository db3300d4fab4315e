package e2e_test

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/parity"
)

// The parity scenarios on the stand-in: what it reports must be what real
// CNPG reported (test/parity/testdata/real-cnpg.json, which
// test/realcnpg holds real CNPG to), but for the differences listed in
// test/parity/differences.go.
func TestStandInHeldToRealCNPG(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap, "--resync-period", "2s")
	parity.Run(t, parity.Site{
		Name: "the stand-in", Kube: kube, PG: pg, Namespace: ns,
		Fit: func(s *pgv1.ClusterSettings) { fitToStandIn(ns, s) },
		Connect: func(ctx context.Context, cluster, database, user, password string) (*pgx.Conn, error) {
			return kit.Open(ctx, ns, cluster, database, user, password)
		},
		Timeout: 2 * time.Minute,
		Mode:    parity.StandIn,
	})
}

// fitToStandIn archives into s3://e2e/<ns>, a folder of the stand-in's
// state directory.
func fitToStandIn(ns string, s *pgv1.ClusterSettings) {
	if s.Backup != nil && s.Backup.ObjectStore != nil {
		s.Backup.ObjectStore.DestinationPath = "s3://e2e/" + ns
	}
}
