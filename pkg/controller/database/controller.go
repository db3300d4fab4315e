package database

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/clock"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/controller/caches"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	cnpglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/cnpg/v1"
	pglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Config are the collaborators of the controller.
type Config = controller.Config

// Controller reconciles PostgresDatabases.
type Controller struct {
	kube     kubernetes.Interface
	pg       versioned.Interface
	recorder record.EventRecorder
	sql      sqlRunner
	// clock is the time of rotation records, status deferrals and the
	// escalation of a stuck cleanup: the seam of unit tests, never nil.
	clock clock.PassiveClock

	databases     pglisters.PostgresDatabaseLister
	databaseIndex cache.Indexer
	clusters      pglisters.PostgresClusterLister
	cnpgDatabases cnpglisters.DatabaseLister
	// cnpgDatabaseIndex finds a PostgresDatabase's CNPG Databases by label.
	cnpgDatabaseIndex cache.Indexer
	cnpgClusters      cnpglisters.ClusterLister
	roleObjects       cnpglisters.DatabaseRoleLister
	// roleObjectIndex finds the DatabaseRoles of one role on one cluster.
	roleObjectIndex cache.Indexer
	secrets         corelisters.SecretLister
	configMaps      corelisters.ConfigMapLister

	queue  *workqueue.Queue
	synced []cache.InformerSynced
	cas    *controller.CACache

	// What the controller remembers of its own writes: since when a
	// deferred status is behind (stale), and which resourceVersions its
	// writes replaced (lag). In memory only; a restart loses nothing but
	// a deferral's head start.
	stale staleSince
	lag   caches.CacheLag
	// written: the CNPG Databases a pass created that the cache may not
	// show yet (ensureDatabase): the next pass, often queued by an event
	// that came while the first worked, would create them again.
	written caches.RecentWrites
}

var gvk = pgv1.SchemeGroupVersion.WithKind("PostgresDatabase")

// New wires the controller to the informers; call before they start. The
// ByClusterRef index it routes cluster events with is registered by
// inf.AddIndexers.
func New(cfg Config, inf *caches.Informers) (*Controller, error) {
	pg := inf.Setpoint.Postgres().V1alpha1()
	cnpg := inf.Setpoint.CNPG().V1()
	core := inf.Kube.Core().V1()
	timeout := cfg.PostgresTimeout
	if timeout <= 0 {
		timeout = defaultPostgresTimeout
	}
	c := &Controller{
		kube:              cfg.Kube,
		pg:                cfg.PG,
		recorder:          cfg.Recorder,
		clock:             cfg.ClockOrReal(),
		sql:               pgxRunner{connector: cfg.Connector, timeout: timeout},
		databases:         pg.PostgresDatabases().Lister(),
		databaseIndex:     pg.PostgresDatabases().Informer().GetIndexer(),
		clusters:          pg.PostgresClusters().Lister(),
		cnpgDatabases:     cnpg.Databases().Lister(),
		cnpgDatabaseIndex: cnpg.Databases().Informer().GetIndexer(),
		cnpgClusters:      cnpg.Clusters().Lister(),
		roleObjects:       cnpg.DatabaseRoles().Lister(),
		roleObjectIndex:   cnpg.DatabaseRoles().Informer().GetIndexer(),
		secrets:           core.Secrets().Lister(),
		configMaps:        core.ConfigMaps().Lister(),
		queue:             workqueue.New(workqueue.Options{Name: "postgresdatabase", Metrics: cfg.Metrics}),
		cas:               cfg.CAs,
	}
	if c.cas == nil {
		c.cas = controller.NewCACache(cfg.Kube)
	}
	enqueue := c.queue.Add
	owned := caches.OwnerHandler("PostgresDatabase", c.uidOf, enqueue)
	// What the cluster and CNPG report moves a waiting database on: those
	// passes go ahead of first passes still queued (workqueue.AddUrgent).
	progressed := caches.OwnerHandler("PostgresDatabase", c.uidOf, c.queue.AddUrgent)
	var err error
	c.synced, err = caches.Register([]caches.Registration{
		caches.On(pg.PostgresDatabases().Informer(), caches.PrimaryHandler(enqueue, c.queue.AddLater, Finalizer)),
		caches.On(pg.PostgresDatabases().Informer(), c.lag.Handler(enqueue)),
		// The updates of a cluster a database pass reads (clusterView).
		caches.On(pg.PostgresClusters().Informer(), c.clusterHandler()),
		// A change of the CNPG Cluster's spec.managed.roles, which a new
		// role waits on while an upgrade moves it out of there.
		caches.On(cnpg.Clusters().Informer(), c.cnpgClusterHandler()),
		caches.On(cnpg.Databases().Informer(), progressed),
		caches.On(cnpg.DatabaseRoles().Informer(), caches.IgnoreUnread(progressed)),
		caches.On(core.Secrets().Informer(), owned),
		caches.On(core.ConfigMaps().Informer(), owned),
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// Run processes keys with workers until ctx ends, then drains.
func (c *Controller) Run(ctx context.Context, workers int) error {
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.synced...) {
		return fmt.Errorf("postgresdatabase: caches did not sync")
	}
	c.queue.Run(ctx, workers, c.sync)
	return nil
}

// roleObjectsOf are the cached DatabaseRoles that manage role on cluster.
func (c *Controller) roleObjectsOf(namespace, cluster, role string) []*cnpgv1.DatabaseRole {
	out, _ := caches.RolesOnCluster(c.roleObjectIndex, namespace, cluster, role) // only an unknown index fails
	return out
}

func (c *Controller) uidOf(namespace, name string) (types.UID, bool) {
	db, err := c.databases.PostgresDatabases(namespace).Get(name)
	if err != nil {
		return "", false
	}
	return db.UID, true
}
