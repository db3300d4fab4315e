package operator

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"k8s.io/klog/v2"

	"github.com/setpoint-dev/setpoint/pkg/collector"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgca"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	pgscheme "github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/scheme"
	"github.com/setpoint-dev/setpoint/pkg/leaderelection"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
	"github.com/setpoint-dev/setpoint/pkg/statemetrics"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Run runs the operator until ctx ends: the HTTP endpoints at once, the
// controllers only while leading (or always, without leader election).
func Run(ctx context.Context, cfg Config) error {
	logger := klog.FromContext(ctx)
	reg := prometheus.NewRegistry()
	m := newOperatorMetrics(reg, cfg)
	qm, pm, cm := m.queues, m.postgres, m.collector
	if m.returner != nil {
		go m.returner.Run(ctx)
	}

	restCfg := rest.AddUserAgent(rest.CopyConfig(cfg.Rest), FieldManager)
	restCfg.Wrap(m.api.wrap)
	// No gzip from the API server: each watch would otherwise hold a gzip
	// reader with its window for its lifetime (measured in
	// docs/benchmarks/history.md), and both sides pay the CPU. Lists and
	// watch events of the few objects we cache cross the cluster network
	// uncompressed instead.
	restCfg.DisableCompression = true
	cfg.Rest = restCfg
	kube, err := kubernetes.NewForConfig(withLimiter(restCfg))
	if err != nil {
		return fmt.Errorf("kubernetes client: %w", err)
	}
	pg, err := versioned.NewForConfig(withLimiter(restCfg))
	if err != nil {
		return fmt.Errorf("setpoint client: %w", err)
	}

	meta, err := metadata.NewForConfig(withLimiter(restCfg))
	if err != nil {
		return fmt.Errorf("metadata client: %w", err)
	}

	disc, err := discovery.NewDiscoveryClientForConfig(restCfg)
	if err != nil {
		return fmt.Errorf("discovery client: %w", err)
	}
	installed := newAPIWatcher(disc)
	go installed.run(ctx)

	h := &health{apis: installed}
	var elector *leaderelection.Elector
	if cfg.LeaderElect {
		m.leader.Provide()
		if elector, err = leaderelection.New(restCfg, cfg.LeaderElection); err != nil {
			return err
		}
		h.leaderCheck = elector.Watchdog().Check
	}
	if err := serveMetrics(ctx, cfg, kube, reg); err != nil {
		return err
	}
	if addr, err := serve(ctx, cfg.HealthAddr, healthHandler(h), nil); err != nil {
		return err
	} else if addr != "" {
		logger.Info("Serving health probes", "addr", addr)
	}
	if addr, err := serve(ctx, cfg.ProfilingAddr, profilingHandler(), nil); err != nil {
		return err
	} else if addr != "" {
		logger.Info("Serving Go profiles under /debug/pprof/", "addr", addr)
	}

	ctrl := &controllers{cfg: cfg, kube: kube, pg: pg, meta: meta, selected: m.selected, qm: qm, pm: pm, cm: cm, bm: m.backups, sm: m.state, h: h}
	// An error here is fatal: the process exits non-zero (and, leading,
	// first releases the Lease) so that it is restarted or a standby takes
	// over, instead of serving probes while reconciling nothing.
	run := func(ctx context.Context) error {
		if err := ctrl.supervise(ctx, installed); err != nil && ctx.Err() == nil {
			return fmt.Errorf("controllers: %w", err)
		}
		return nil
	}
	if elector == nil {
		h.synced.Store(false)
		return run(ctx)
	}
	// A standby serves probes and metrics and nothing else: it is ready.
	h.synced.Store(true)
	return elector.Run(ctx, run)
}

// controllers are what the leader runs.
type controllers struct {
	cfg  Config
	kube kubernetes.Interface
	pg   versioned.Interface
	// meta reads Namespaces' metadata for --watch-namespace-selector.
	meta     metadata.Interface
	selected prometheus.Gauge
	qm       *workqueue.Metrics
	pm       *postgres.Metrics
	cm       *collector.Metrics
	bm       *controller.BackupMetrics
	sm       *statemetrics.Metrics
	h        *health
}

// run starts informers and controllers for the CRDs installed, and
// returns after ctx ends and every worker has drained.
func (c *controllers) run(ctx context.Context, installed apis) error {
	logger := klog.FromContext(ctx)
	recorder, stopEvents, err := newRecorder(ctx, c.cfg.Rest)
	if err != nil {
		return err
	}
	defer stopEvents()
	if c.cfg.CollectorOff {
		logger.Info("The Postgres health collector is off: no health conditions, and storage auto-grow cannot act")
	}
	shared := scopeShared{
		recorder:  recorder,
		connector: postgres.NewConnector(postgres.NewHostMap(c.cfg.PostgresHostMap)).WithMetrics(c.pm),
		// One CA cache for every controller: a CA one of them finds
		// rotated (a verification failure makes it forget and re-read) is
		// fresh for the others too.
		cas: cnpgca.NewCACache(c.kube),
	}
	var scopes []*scope
	for _, ns := range c.namespaces() {
		sc, err := c.newScope(ns, installed, shared)
		if err != nil {
			return err
		}
		scopes = append(scopes, sc)
	}
	for _, sc := range scopes {
		// The state metrics read these caches, so they stop with them.
		defer c.sm.Add(sc.stateSource())()
		if err := sc.inf.Start(ctx); err != nil {
			return err
		}
		defer sc.inf.Shutdown()
	}
	ctx, fail := context.WithCancelCause(ctx)
	defer fail(nil)
	if c.cfg.WatchNamespaceSelector != nil {
		stop, err := c.runSelected(ctx, installed, shared, fail)
		if err != nil {
			return err
		}
		defer stop()
	}
	c.h.synced.Store(true)
	logger.Info("Caches synced; starting workers", "namespaces", len(scopes))

	var wg sync.WaitGroup
	errs := make(chan error, 2*len(scopes))
	for _, sc := range scopes {
		sc.run(ctx, &wg, errs, c.cfg)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return err
		}
	}
	if c.cfg.WatchNamespaceSelector != nil {
		// The selected namespaces' scopes run until the run ends, or one
		// of them fails.
		<-ctx.Done()
		if err := context.Cause(ctx); !errors.Is(err, context.Canceled) {
			return err
		}
	}
	return nil
}

// eventCacheSize bounds each of the Event correlator's three caches (the
// spam filter's per-object token buckets, the aggregator's and the
// de-duplicator's keys), 4,096 entries by default, about 1 KiB of memory
// per object with an Event. setpoint emits Events only on transitions, so
// an object's Events rarely repeat, and when they do (a health condition
// flapping) the repeat is soon after: the cache must hold the objects that
// are changing now, a few times the workers' (12 by default) objects in
// flight. An evicted object's repeated Event is created anew instead of
// counted on the old one, and its spam-filter budget starts full again.
const eventCacheSize = 256

// newRecorder returns an Event recorder and a function that flushes and
// stops it. Events go through a client of their own: with its own rate
// limiter, a burst of Events never delays the writes reconciles need.
func newRecorder(ctx context.Context, restCfg *rest.Config) (record.EventRecorder, func(), error) {
	kube, err := kubernetes.NewForConfig(restCfg)
	if err != nil {
		return nil, nil, fmt.Errorf("events client: %w", err)
	}
	// Events are recorded only on our own kinds, so the recorder's scheme,
	// which only names an object's kind, holds only those: not a second
	// copy of every built-in Kubernetes type.
	scheme := runtime.NewScheme()
	_ = pgscheme.AddToScheme(scheme)
	b := record.NewBroadcaster(record.WithContext(ctx),
		record.WithCorrelatorOptions(record.CorrelatorOptions{LRUCacheSize: eventCacheSize}))
	b.StartStructuredLogging(4)
	b.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: kube.CoreV1().Events("")})
	return b.NewRecorder(scheme, corev1.EventSource{Component: FieldManager}), b.Shutdown, nil
}
