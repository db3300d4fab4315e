package realcnpg

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/parity"
)

// The parity scenarios on real CNPG: what CNPG reports must be what it
// reported when the record (test/parity/testdata/real-cnpg.json) was
// made; SETPOINT_PARITY_RECORD=1 makes the record instead. test/e2e holds
// the stand-in to the same record.
func TestParityScenariosOnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	mode := parity.HoldToRecord
	if os.Getenv("SETPOINT_PARITY_RECORD") == "1" {
		mode = parity.WriteRecord
	}
	parity.Run(t, parity.Site{
		Name: "real CNPG", Kube: kube, PG: pg, Namespace: ns,
		Fit: fitToNode,
		Connect: func(ctx context.Context, cluster, database, user, password string) (*pgx.Conn, error) {
			return kit.Open(ctx, ns, cluster, database, user, password)
		},
		Timeout: 5 * time.Minute,
		Mode:    mode,
	})
}

// fitToNode is smallClass's instances, archiving into the node's S3 store.
func fitToNode(s *pgv1.ClusterSettings) {
	fitInstances(s)
	if s.Backup != nil && s.Backup.ObjectStore != nil {
		s.Backup.ObjectStore.DestinationPath = "s3://" + S3Bucket + "/parity"
		s.Backup.ObjectStore.EndpointURL = S3Endpoint
	}
}
