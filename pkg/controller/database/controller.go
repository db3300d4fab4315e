package database

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	rbaclisters "k8s.io/client-go/listers/rbac/v1"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/controller/cachelag"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgca"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	cnpglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/cnpg/v1"
	pglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Config are the collaborators of the controller.
type Config = controller.Config

// Controller reconciles PostgresDatabases. What its passes' steps use
// is deps, built once here and shared by every pass; the rest (the
// queue, the informers, the listers the snapshot reads) is the
// Controller's alone.
type Controller struct {
	deps

	databaseIndex cache.Indexer
	clusters      pglisters.PostgresClusterLister
	// clusterIndex finds a class's clusters (ByClass); classes are read
	// for the databases' defaults (database_defaults.go).
	clusterIndex  cache.Indexer
	classes       pglisters.PostgresClusterClassLister
	cnpgDatabases cnpglisters.DatabaseLister
	// cnpgDatabaseIndex finds a PostgresDatabase's CNPG Databases by label.
	cnpgDatabaseIndex cache.Indexer
	cnpgClusters      cnpglisters.ClusterLister
	roleObjects       cnpglisters.DatabaseRoleLister
	configMaps        informers.ConfigMapLister
	// namespaces caches Namespaces' labels for admission (namespaces.go).
	namespaces cache.SharedIndexInformer
	// instanceRoles are CNPG's instance Roles, trimmed to the Secrets
	// they let read (role_grant.go).
	instanceRoles rbaclisters.RoleLister

	queue  *workqueue.Queue
	synced []cache.InformerSynced

	// expect: the controller's own updates of a PostgresDatabase (the
	// finalizer, status) its cache may not show yet; a pass waits until it
	// does.
	expect cachelag.Expectations
}

var gvk = pgv1.SchemeGroupVersion.WithKind("PostgresDatabase")

// New wires the controller to the informers; call before they start. The
// ByClusterRef index it routes cluster events with is registered by
// inf.AddIndexers.
func New(cfg Config, inf *informers.Informers) (*Controller, error) {
	pg := inf.Setpoint.Postgres().V1alpha1()
	cnpg := inf.Setpoint.CNPG().V1()
	core := inf.Kube.Core().V1()
	timeout := cfg.PostgresTimeout
	if timeout <= 0 {
		timeout = defaultPostgresTimeout
	}
	c := &Controller{
		deps: deps{
			kube:            cfg.Kube,
			pg:              cfg.PG,
			recorder:        cfg.Recorder,
			clock:           cfg.ClockOrReal(),
			sql:             pgxRunner{connector: cfg.Connector, timeout: timeout},
			cas:             cfg.CAs,
			databases:       pg.PostgresDatabases().Lister(),
			secrets:         core.Secrets().Lister(),
			roleObjectIndex: cnpg.DatabaseRoles().Informer().GetIndexer(),
		},
		databaseIndex:     pg.PostgresDatabases().Informer().GetIndexer(),
		clusters:          pg.PostgresClusters().Lister(),
		clusterIndex:      pg.PostgresClusters().Informer().GetIndexer(),
		classes:           pg.PostgresClusterClasses().Lister(),
		cnpgDatabases:     cnpg.Databases().Lister(),
		cnpgDatabaseIndex: cnpg.Databases().Informer().GetIndexer(),
		cnpgClusters:      cnpg.Clusters().Lister(),
		roleObjects:       cnpg.DatabaseRoles().Lister(),
		configMaps:        inf.ConfigMaps(),
		namespaces:        newNamespaceInformer(cfg.Kube),
		instanceRoles:     inf.InstanceRoles.Rbac().V1().Roles().Lister(),
		queue:             workqueue.New(workqueue.Options{Name: "postgresdatabase", Metrics: cfg.Metrics}),
	}
	if c.cas == nil {
		c.cas = cnpgca.NewCACache(cfg.Kube)
	}
	enqueue := c.queue.Add
	owned := informers.OwnerHandler("PostgresDatabase", c.uidOf, enqueue)
	// What the cluster and CNPG report moves a waiting database on: those
	// passes go ahead of first passes still queued (workqueue.AddUrgent).
	progressed := informers.OwnerHandler("PostgresDatabase", c.uidOf, c.queue.AddUrgent)
	var err error
	c.synced, err = informers.Register([]informers.Registration{
		informers.On(pg.PostgresDatabases().Informer(), informers.PrimaryHandler(enqueue, c.queue.AddLater, Finalizer)),
		informers.On(pg.PostgresDatabases().Informer(), c.expect.Handler(enqueue)),
		// The updates of a cluster a database pass reads (clusterView).
		informers.On(pg.PostgresClusters().Informer(), c.clusterHandler()),
		// A change of the CNPG Cluster's spec.managed.roles, which a new
		// role waits on while an upgrade moves it out of there.
		informers.On(cnpg.Clusters().Informer(), c.cnpgClusterHandler()),
		informers.On(cnpg.Databases().Informer(), progressed),
		informers.On(cnpg.DatabaseRoles().Informer(), informers.IgnoreUnread(progressed)),
		informers.On(core.Secrets().Informer(), owned),
		// A Secret CNPG's instance manager was refused, now readable.
		informers.On(inf.InstanceRoles.Rbac().V1().Roles().Informer(), c.instanceRoleHandler()),
		informers.On(core.Secrets().Informer(), c.serverCAHandler()),
		informers.On(pg.PostgresClusterClasses().Informer(), c.classHandler()),
		informers.On(core.ConfigMaps().Informer(), owned),
		// Across namespaces the cluster side is owned by labels, not
		// owner references (tenancy.go).
		informers.On(cnpg.Databases().Informer(), tenantHandler(c.queue.AddUrgent)),
		informers.On(cnpg.DatabaseRoles().Informer(), informers.IgnoreUnread(tenantHandler(c.queue.AddUrgent))),
		informers.On(core.Secrets().Informer(), tenantHandler(enqueue)),
		informers.On(pg.PostgresClusterClasses().Informer(), c.tenantsClassHandler(pg.PostgresClusters().Informer().GetIndexer())),
	})
	if err != nil {
		return nil, err
	}
	// Not among synced: see newNamespaceInformer.
	if _, err := c.namespaces.AddEventHandler(c.namespaceHandler()); err != nil {
		return nil, fmt.Errorf("watch Namespaces: %w", err)
	}
	return c, nil
}

// Run processes keys with workers until ctx ends, then drains.
func (c *Controller) Run(ctx context.Context, workers int) error {
	go c.namespaces.RunWithContext(ctx)
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.synced...) {
		return fmt.Errorf("postgresdatabase: caches did not sync")
	}
	c.queue.Run(ctx, workers, c.sync)
	return nil
}

func (c *Controller) uidOf(namespace, name string) (types.UID, bool) {
	db, err := c.databases.PostgresDatabases(namespace).Get(name)
	if err != nil {
		return "", false
	}
	return db.UID, true
}
