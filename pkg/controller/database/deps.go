package database

import (
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cachelag"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgca"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	pglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/postgres/v1alpha1"
)

// deps are what a pass's steps may use beyond the pass itself: the
// clients, the few caches they read directly (the snapshot holds the
// rest), the recorder, the clock, the SQL runner, the CA cache and what
// the controller remembers of its own writes. The Controller builds them
// once (New) and every pass points at them (pass.deps); the queue, the
// informers' wiring and the listers the snapshot reads stay the
// Controller's, out of the steps' reach — as the cluster's deps
// (pkg/controller/cluster/deps.go).
type deps struct {
	kube     kubernetes.Interface
	pg       versioned.Interface
	recorder record.EventRecorder
	sql      sqlRunner
	// clock is the time of rotation records, status deferrals and the
	// escalation of a stuck cleanup: the seam of unit tests, never nil.
	clock clock.PassiveClock
	cas   *cnpgca.CACache

	// databases: an adoption reads the PostgresDatabase it adopts from
	// (adopt.go).
	databases pglisters.PostgresDatabaseLister
	// secrets: the cluster's CA and monitor Secrets (sql_identity.go).
	secrets corelisters.SecretLister
	// roleObjectIndex finds the DatabaseRoles of one role on one cluster.
	roleObjectIndex cache.Indexer

	// What the controller remembers of its own writes: since when a
	// deferred status is behind (stale). In memory only; a restart loses
	// nothing but a deferral's head start.
	stale staleSince
	// drift: what a pass revoked as drift until a stored status shows it
	// (drift_unreported.go).
	drift unreportedDrift
	// created: the CNPG Databases a pass created that the cache may not
	// show yet (ensureDatabase): the next pass, often queued by an event
	// that came while the first worked, would create them again.
	created cachelag.Expectations
}

// roleObjectsOf are the cached DatabaseRoles that manage role on cluster.
func (d *deps) roleObjectsOf(namespace, cluster, role string) []*cnpgv1.DatabaseRole {
	out, _ := informers.RolesOnCluster(d.roleObjectIndex, namespace, cluster, role) // only an unknown index fails
	return out
}
