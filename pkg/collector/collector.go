package collector

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/cnpg/v1"
	pglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// Options tune the collector.
type Options struct {
	// Interval is the time between two samples of one cluster, jittered
	// by ±10 % so that clusters spread out. Default 60 s.
	Interval time.Duration
	// Workers bound how many clusters are sampled at once (so how many
	// connections the collector holds). Default 4.
	Workers int
	// Timeout bounds one sample: connecting, the statement, and the
	// server's statement_timeout. Default 5 s.
	Timeout time.Duration
	// NearlyFull is the share of the volume at which StorageNearlyFull
	// turns on. Default 0.9.
	NearlyFull float64
	// WakeThresholds, when set, returns further usage thresholds of a
	// cluster (fractions of its volume) whose crossing, either way, wakes
	// its pass: a capability such as storage auto-grow gives its own
	// threshold here and decides in the pass from the sample.
	WakeThresholds func(*pgv1.PostgresCluster) []float64
}

func (o Options) withDefaults() Options {
	if o.Interval <= 0 {
		o.Interval = time.Minute
	}
	if o.Workers <= 0 {
		o.Workers = 4
	}
	if o.Timeout <= 0 {
		o.Timeout = 5 * time.Second
	}
	if o.NearlyFull <= 0 {
		o.NearlyFull = 0.9
	}
	return o
}

// CAs hands out a cluster's CA certificate (cnpgca.CACache).
type CAs interface {
	Get(ctx context.Context, namespace, name string) ([]byte, error)
	Forget(namespace, name string)
}

// Deps are what the collector reads: the informers' caches, the
// connector the pipelines use, and the API for the one thing not cached
// (an external superuser Secret).
type Deps struct {
	Kube      kubernetes.Interface
	Connector *postgres.Connector
	// Clusters is the PostgresCluster informer: the collector follows it
	// to learn which clusters to sample and which are gone.
	Clusters     cache.SharedIndexInformer
	CNPGClusters cnpglisters.ClusterLister
	Secrets      corelisters.SecretLister
	CAs          CAs
	Metrics      *Metrics
}

// Collector samples every Ready PostgresCluster's primary in the
// background and keeps the last sample of each in memory.
type Collector struct {
	opts     Options
	deps     Deps
	clusters pglisters.PostgresClusterLister
	queue    workqueue.TypedDelayingInterface[types.NamespacedName]
	now      func() time.Time
	// take replaces the SQL round trip in unit tests.
	take func(ctx context.Context, pc *pgv1.PostgresCluster) Sample

	mu      sync.RWMutex
	samples map[types.NamespacedName]Sample
}

// New returns a collector following deps.Clusters; register it before
// the informers start, run it while leading.
func New(opts Options, deps Deps) (*Collector, error) {
	c := &Collector{
		opts:     opts.withDefaults(),
		deps:     deps,
		clusters: pglisters.NewPostgresClusterLister(deps.Clusters.GetIndexer()),
		queue: workqueue.NewTypedDelayingQueueWithConfig(workqueue.TypedDelayingQueueConfig[types.NamespacedName]{
			Name: "collector",
		}),
		now:     time.Now,
		samples: map[types.NamespacedName]Sample{},
	}
	c.take = c.sampleOf
	if _, err := deps.Clusters.AddEventHandler(c.handler()); err != nil {
		return nil, err
	}
	return c, nil
}

// Sample implements Reader.
func (c *Collector) Sample(key types.NamespacedName) (Sample, bool) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	s, ok := c.samples[key]
	return s, ok
}

// forget drops what the collector holds of a cluster that is gone: its
// sample and its gauges, together under the lock a sample is stored
// under, so a sample finishing at the same moment cannot bring them back
// (see keep).
func (c *Collector) forget(key types.NamespacedName) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.samples, key)
	c.deps.Metrics.forget(key)
}

// sampled says whether the cluster has a sample.
func (c *Collector) sampled(key types.NamespacedName) bool {
	_, ok := c.Sample(key)
	return ok
}

var _ Reader = (*Collector)(nil)
