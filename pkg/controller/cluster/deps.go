package cluster

import (
	"context"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/record"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
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
	// objectStoresMissing: the barman-cloud plugin's CRD is not installed.
	objectStoresMissing bool
	// podMonitorsMissing: the Prometheus Operator's CRD is not installed.
	podMonitorsMissing bool
	// pace spaces the applies of a cluster's managed roles (claimDelay).
	pace *claimPace
	// settle holds back CNPG status that flaps (phase_settle.go); nil
	// reports it as it is.
	settle *phaseSettler
	// lookupRoles replaces roleComments in tests.
	lookupRoles func(ctx context.Context, p *pass, names []string) (map[string]string, error)
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
	// roleBatchDelay lets role claims of PostgresDatabases created together
	// reach the cluster as one pass: one apply of managed.roles and one
	// status write instead of one per database. A claim is a database's
	// Secrets, created side by side in its first pass, so one database's
	// claim arrives within a round trip, and databases applied together
	// (one kubectl apply) are created within milliseconds of each other;
	// every millisecond here is latency of every new database (300 ms was
	// the largest part of setpoint's own share of apply → Ready).
	roleBatchDelay = 100 * time.Millisecond
)

var applyOpts = metav1.ApplyOptions{FieldManager: fieldManager, Force: true}
