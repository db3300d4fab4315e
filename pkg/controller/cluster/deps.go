package cluster

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// deps are the side-effecting collaborators of a pass.
type deps struct {
	kube      kubernetes.Interface
	pg        versioned.Interface
	recorder  record.EventRecorder
	connector *postgres.Connector
	pgTimeout time.Duration
	// clock is the time of rotation records, storage grows, the checks
	// that wait out CNPG's stale status and the settler's: the seam of
	// unit tests, never nil.
	clock clock.PassiveClock
	// backupMetrics are the per-cluster backup gauges (nil: none).
	backupMetrics *controller.BackupMetrics
	// clientCAGrace is how long a replaced client CA stays trusted once
	// every certificate it signed is re-issued (certificates_move.go).
	clientCAGrace time.Duration
	// objectStoresMissing: the barman-cloud plugin's CRD is not installed.
	objectStoresMissing bool
	// classesReadOnly: never write a PostgresClusterClass (Config).
	classesReadOnly bool
	// settle holds back CNPG status that flaps (provisioner_settle.go); nil
	// reports it as it is.
	settle *phaseSettler
	// clientCAs, when set, replaces the TLS handshake that asks the
	// primary which client CAs it trusts (acceptedClientCAs): the seam of
	// unit tests.
	clientCAs func(ctx context.Context, p *pass) ([][]byte, error)
	// roleComment, when set, replaces the SQL that reads a role's comment
	// (monitor_claim.go): the seam of unit tests.
	roleComment func(ctx context.Context, p *pass, role string) (comment *string, exists bool, err error)
	// databases are the PostgresDatabases, indexed by the cluster they
	// name (informers.ByClusterRef): a major upgrade reads their declared
	// extensions and whether each was analyzed on the new major.
	databases cache.Indexer
}

var gvk = pgv1.SchemeGroupVersion.WithKind("PostgresCluster")

const typesMerge = types.MergePatchType

// Requeue intervals of expected waits. A wait that ends with an event we
// watch (CNPG Cluster or Pooler status) only needs a safety net; a wait
// nothing announces (Postgres applying a parameter, CNPG's CA Secret, a
// status that may be stale after our own change) polls.
const (
	eventRecheck     = 30 * time.Second
	provisionRecheck = 5 * time.Second
	externalRecheck  = time.Minute
	configureRecheck = 5 * time.Second
)

var applyOpts = metav1.ApplyOptions{FieldManager: fieldManager, Force: true}

// acceptedClientCAs are the subjects of the CAs the primary verifies
// client certificates with, as its TLS handshake lists them.
func (d *deps) acceptedClientCAs(ctx context.Context, p *pass) ([][]byte, error) {
	if d.clientCAs != nil {
		return d.clientCAs(ctx, p)
	}
	ctx, cancel := context.WithTimeout(ctx, d.pgTimeout)
	defer cancel()
	return d.connector.AcceptedClientCAs(ctx, p.cluster.Namespace, p.cluster.Name, p.obs.ca)
}
