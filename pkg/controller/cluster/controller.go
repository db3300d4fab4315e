package cluster

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/collector"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/controller/cachelag"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgca"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
	barmanlisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/barmancloud/v1"
	cnpglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/cnpg/v1"
	pglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Config are the collaborators of the controller.
type Config = controller.Config

// Controller reconciles PostgresClusters.
type Controller struct {
	deps *deps

	clusters      pglisters.PostgresClusterLister
	clusterIndex  cache.Indexer
	classes       pglisters.PostgresClusterClassLister
	cnpgClusters  cnpglisters.ClusterLister
	objectStores  barmanlisters.ObjectStoreLister
	databaseRoles cnpglisters.DatabaseRoleLister
	roleIndex     cache.Indexer
	secrets       corelisters.SecretLister
	configMaps    informers.ConfigMapLister
	// readers read the children components cache themselves (watch.go).
	readers []reader

	queue      *workqueue.Queue
	synced     []cache.InformerSynced
	cas        *cnpgca.CACache
	samples    collector.Reader
	components []pipeline.Stage[*pass]

	// expect: this controller's own updates of a PostgresCluster (the
	// finalizer, status) its cache may not show yet; a pass waits until it
	// does (in memory only).
	expect cachelag.Expectations
}

// New wires the controller to the informers; call before they start.
func New(cfg Config, inf *informers.Informers) (*Controller, error) {
	pg := inf.Setpoint.Postgres().V1alpha1()
	cnpg := inf.Setpoint.CNPG().V1()
	core := inf.Kube.Core().V1()
	objectStoreInformer, objectStoreLister := objectStoreCache(inf)
	clk := cfg.ClockOrReal()
	c := &Controller{
		deps: &deps{clock: clk, settle: newPhaseSettler(clk), kube: cfg.Kube, pg: cfg.PG, recorder: cfg.Recorder,
			connector: cfg.Connector, pgTimeout: cfg.PostgresTimeout, classesReadOnly: cfg.ClassesReadOnly,
			objectStoresMissing: !inf.Served(objectStoreAPI), backupMetrics: cfg.BackupMetrics,
			clientCAGrace: cfg.ClientCAGraceOrDefault(), databases: pg.PostgresDatabases().Informer().GetIndexer()},
		clusters:      pg.PostgresClusters().Lister(),
		clusterIndex:  pg.PostgresClusters().Informer().GetIndexer(),
		classes:       pg.PostgresClusterClasses().Lister(),
		cnpgClusters:  cnpg.Clusters().Lister(),
		objectStores:  objectStoreLister,
		databaseRoles: cnpg.DatabaseRoles().Lister(),
		roleIndex:     cnpg.DatabaseRoles().Informer().GetIndexer(),
		secrets:       core.Secrets().Lister(),
		configMaps:    inf.ConfigMaps(),
		queue:         workqueue.New(workqueue.Options{Name: "postgrescluster", Metrics: cfg.Metrics}),
		cas:           cfg.CAs,
		samples:       cfg.Samples,
		components:    stages(),
	}
	if c.cas == nil {
		c.cas = cnpgca.NewCACache(cfg.Kube)
	}
	enqueue := c.queue.Add
	uid := func(ns, name string) (types.UID, bool) {
		pc, err := c.clusters.PostgresClusters(ns).Get(name)
		if err != nil {
			return "", false
		}
		return pc.UID, true
	}
	owned := informers.OwnerHandler("PostgresCluster", uid, enqueue)
	// What CNPG reports moves a waiting cluster on: those passes go ahead
	// of first passes still queued (cnpg_reports.go).
	progressed := informers.OwnerHandler("PostgresCluster", uid, c.queue.AddUrgent)
	regs := []informers.Registration{
		informers.On(pg.PostgresClusters().Informer(), informers.PrimaryHandler(enqueue, c.queue.AddLater, Finalizer)),
		informers.On(pg.PostgresClusters().Informer(), c.skippedPassWake()),
		informers.On(pg.PostgresClusterClasses().Informer(), informers.MappedHandler(c.clustersOfClass, nil, enqueue)),
		// A class being deleted, and every cluster that goes away, let
		// syncClass decide whether the class may go too.
		informers.On(pg.PostgresClusterClasses().Informer(), informers.MappedHandler(deletingClass, nil, enqueue)),
		informers.On(pg.PostgresClusters().Informer(), cache.ResourceEventHandlerFuncs{DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if pc, ok := obj.(*pgv1.PostgresCluster); ok {
				enqueue(classKey(pc.Spec.Class))
			}
		}}),
		informers.On(cnpg.Clusters().Informer(), cnpgClusterHandler(owned, progressed, c.monitorApplied)),
		// The monitor's and the certificate group's DatabaseRoles (those
		// of PostgresDatabases go to the database controller: the handler
		// follows the controller reference's kind), but not for what no
		// pass reads of them (roleChangeUnread).
		informers.On(cnpg.DatabaseRoles().Informer(), informers.IgnoreUnread(informers.IgnoreUpdates(progressed, roleChangeUnread))),
		informers.On(core.Secrets().Informer(), owned),
		informers.On(core.ConfigMaps().Informer(), owned),
		// A database's change matters to its cluster only during a major
		// upgrade (its extensions, its analysis): upgradingClusterOf.
		informers.On(pg.PostgresDatabases().Informer(), informers.MappedHandler(c.upgradingClusterOf, nil, enqueue)),
	}
	if objectStoreInformer != nil {
		regs = append(regs, informers.On(objectStoreInformer, owned))
	}
	readers, own := watchComponents(components(), wiring{inf: inf, owned: owned, enqueue: enqueue})
	c.readers, regs = readers, append(regs, own...)
	var err error
	if c.synced, err = informers.Register(regs); err != nil {
		return nil, err
	}
	return c, nil
}

// Run processes keys with workers until ctx ends, then drains.
func (c *Controller) Run(ctx context.Context, workers int) error {
	if !cache.WaitForNamedCacheSyncWithContext(ctx, c.synced...) {
		return fmt.Errorf("postgrescluster: caches did not sync")
	}
	c.queue.Run(ctx, workers, c.sync)
	return nil
}

func (c *Controller) clustersOfClass(obj any) []workqueue.Key {
	class, ok := obj.(*pgv1.PostgresClusterClass)
	if !ok {
		return nil
	}
	return informers.ClustersOfClass(c.clusterIndex, class.Name)
}

func deletingClass(obj any) []workqueue.Key {
	class, ok := obj.(*pgv1.PostgresClusterClass)
	if !ok || class.DeletionTimestamp == nil {
		return nil
	}
	return []workqueue.Key{classKey(class.Name)}
}
