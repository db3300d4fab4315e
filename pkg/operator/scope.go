package operator

import (
	"context"
	"sync"

	"k8s.io/client-go/tools/record"

	"github.com/setpoint-dev/setpoint/pkg/collector"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/controller/cluster"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgca"
	"github.com/setpoint-dev/setpoint/pkg/controller/database"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
	"github.com/setpoint-dev/setpoint/pkg/statemetrics"
)

// A scope is the informers and controllers of one watched namespace (or
// of all namespaces, "", the default). A namespace-scoped operator
// (--watch-namespaces a,b) runs one scope per namespace: client-go's
// informers list and watch either one namespace or all of them, and
// RBAC granted per namespace allows only the former. With
// --watch-namespace-selector a scope starts when its namespace is
// labelled and stops when the label goes (namespaceset.go).
type scope struct {
	inf       *informers.Informers
	col       *collector.Collector
	clusters  *cluster.Controller
	databases *database.Controller
}

// scopeShared is what every scope shares.
type scopeShared struct {
	recorder  record.EventRecorder
	connector *postgres.Connector
	cas       *cnpgca.CACache
}

// namespaces are the scopes to run for the whole run: the watched
// namespaces, none beside a namespace selector (runSelected runs those),
// or the one of --namespace ("" is all).
func (c *controllers) namespaces() []string {
	if len(c.cfg.WatchNamespaces) != 0 || c.cfg.WatchNamespaceSelector != nil {
		return c.cfg.WatchNamespaces
	}
	return []string{c.cfg.Namespace}
}

// newScope builds the informers and controllers of namespace ns; nothing
// runs until Start and run.
func (c *controllers) newScope(ns string, installed apis, shared scopeShared) (*scope, error) {
	cfg := c.cfg
	inf := informers.NewInformers(c.kube, c.pg, ns, cfg.Resync)
	for _, o := range cluster.OptionalAPIs() {
		if !installed.served(o) {
			inf.SetMissing(o)
		}
	}
	if err := inf.AddIndexers(); err != nil {
		return nil, err
	}
	ctrlCfg := controller.Config{
		Kube: c.kube, PG: c.pg, Recorder: shared.recorder, Connector: shared.connector,
		PostgresTimeout: cfg.PostgresTimeout, Metrics: c.qm, CAs: shared.cas,
		ClassesReadOnly: cfg.namespaceScoped(), BackupMetrics: c.bm, ClientCAGrace: cfg.ClientCAGrace,
	}
	sc := &scope{inf: inf}
	if !cfg.CollectorOff {
		col, err := c.newCollector(inf, shared.cas)
		if err != nil {
			return nil, err
		}
		sc.col, ctrlCfg.Samples = col, col
	}
	var err error
	if sc.clusters, err = cluster.New(ctrlCfg, inf); err != nil {
		return nil, err
	}
	if sc.databases, err = database.New(ctrlCfg, inf); err != nil {
		return nil, err
	}
	return sc, nil
}

// run starts the scope's workers (and collector, which runs only while
// leading, as they do); each controller's result goes to errs.
func (sc *scope) run(ctx context.Context, wg *sync.WaitGroup, errs chan<- error, cfg Config) {
	if sc.col != nil {
		wg.Go(func() { sc.col.Run(ctx, sc.clusters.Wake) })
	}
	wg.Go(func() { errs <- sc.clusters.Run(ctx, cfg.ClusterWorkers) })
	wg.Go(func() { errs <- sc.databases.Run(ctx, cfg.DatabaseWorkers) })
}

// stateSource is the scope's caches the state metrics read (registered
// before the informers start, as the controllers' own listers are).
func (sc *scope) stateSource() *statemetrics.Source {
	v := sc.inf.Setpoint.Postgres().V1alpha1()
	return &statemetrics.Source{Clusters: v.PostgresClusters().Lister(), Databases: v.PostgresDatabases().Lister()}
}
