package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/setpoint-dev/setpoint/pkg/collector"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/leaderelection"
	"github.com/setpoint-dev/setpoint/pkg/operator"
)

// options are the command-line flags.
type options struct {
	kubeconfig      string
	namespace       string
	watchNamespaces string
	watchSelector   string
	clusterWorkers  int
	databaseWorkers int
	resync          time.Duration
	metricsAddr     string
	healthAddr      string
	profilingAddr   string
	memoryReturn    time.Duration
	metricsSecure   bool
	metricsCertDir  string
	hostMap         string
	pgTimeout       time.Duration
	clientCAGrace   time.Duration
	sampleInterval  time.Duration
	sampleWorkers   int
	nearlyFull      int
	qps             float64
	burst           int

	leaderElect   bool
	leNamespace   string
	leName        string
	leIdentity    string
	leaseDuration time.Duration
	renewDeadline time.Duration
	retryPeriod   time.Duration
}

func (o *options) bind(fs *flag.FlagSet) {
	fs.StringVar(&o.kubeconfig, "kubeconfig", os.Getenv("KUBECONFIG"), "Path to a kubeconfig; empty means in-cluster configuration.")
	fs.StringVar(&o.namespace, "namespace", "", "Cache only this namespace, for development; the operator still manages classes' class-in-use finalizer, as cluster-wide. Empty watches all namespaces. For a namespace-scoped install use --watch-namespaces.")
	fs.StringVar(&o.watchNamespaces, "watch-namespaces", "", "Comma-separated namespaces to watch, each with namespaced RBAC (Role and RoleBinding): the operator lists and watches only those, and only reads PostgresClusterClasses (no class-in-use finalizer). Empty, without --watch-namespace-selector, watches all namespaces.")
	fs.StringVar(&o.watchSelector, "watch-namespace-selector", "", "Label selector of further namespaces to watch, e.g. tenant=true: a namespace labelled to match is watched within seconds, without a restart, and one whose labels stop matching is no longer reconciled (nothing in it is deleted). Each needs the same namespaced RBAC as --watch-namespaces (a RoleBinding to ClusterRole setpoint-tenant, for a namespace-scoped install); cluster-wide, only Namespaces are listed and watched (metadata only). Classes are only read. Empty: off.")
	fs.IntVar(&o.clusterWorkers, "cluster-workers", 4, "Concurrent PostgresCluster passes.")
	fs.IntVar(&o.databaseWorkers, "database-workers", 8, "Concurrent PostgresDatabase passes.")
	fs.DurationVar(&o.resync, "resync-period", 10*time.Minute, "How often every object is re-examined even without changes.")
	fs.StringVar(&o.metricsAddr, "metrics-bind-address", ":8080", "Address of /metrics; \"0\" disables it.")
	fs.BoolVar(&o.metricsSecure, "metrics-secure", true, "Serve /metrics over HTTPS, each request authenticated and authorized by the API server (TokenReview, SubjectAccessReview); false serves plain HTTP to anyone, for local runs.")
	fs.StringVar(&o.metricsCertDir, "metrics-cert-dir", "", "Directory with tls.crt and tls.key for /metrics, re-read when they change (a rotated certificate is served without a restart); empty generates a self-signed certificate at start.")
	fs.StringVar(&o.healthAddr, "health-probe-bind-address", ":8081", "Address of /healthz and /readyz; \"0\" disables it.")
	fs.StringVar(&o.profilingAddr, "profiling-bind-address", "0", "Address of Go's profiles (/debug/pprof/: heap, CPU, goroutines), e.g. 127.0.0.1:8082; \"0\" (default) disables it. Bind it to loopback only.")
	fs.DurationVar(&o.memoryReturn, "memory-return-period", 10*time.Second, "After a burst of work, freed heap memory is returned to the OS once allocation has been quiet for this long (one Go collection each time); 0 leaves it to Go's slow background scavenger.")
	fs.StringVar(&o.hostMap, "postgres-host-map", "", "JSON file mapping Postgres service addresses (host:port) to reachable ones, for running outside the cluster.")
	fs.DurationVar(&o.pgTimeout, "postgres-timeout", 5*time.Second, "Timeout of each Postgres connection attempt and statement batch.")
	fs.DurationVar(&o.clientCAGrace, "client-ca-grace", controller.DefaultClientCAGrace, "How long a replaced client CA stays trusted once every certificate it signed is re-issued (a cluster's move to its own client CA, or a renewal).")
	fs.DurationVar(&o.sampleInterval, "postgres-sample-interval", time.Minute, "How often the background collector samples each Ready cluster's primary (size, writes accepted, connections, lag); jittered ±10 %. 0 turns the collector off: no health conditions or gauges, and storage auto-grow cannot act.")
	fs.IntVar(&o.sampleWorkers, "postgres-sample-workers", 4, "Clusters the collector samples at once: at most this many collector connections.")
	fs.IntVar(&o.nearlyFull, "storage-nearly-full-percent", 90, "Share of a cluster's volume in use at which StorageNearlyFull turns on.")
	fs.Float64Var(&o.qps, "kube-api-qps", 50, "Sustained queries per second to the API server.")
	fs.IntVar(&o.burst, "kube-api-burst", 100, "Burst of queries to the API server.")
	fs.BoolVar(&o.leaderElect, "leader-elect", true, "Run controllers only while holding the leader Lease.")
	fs.StringVar(&o.leNamespace, "leader-election-namespace", "setpoint-system", "Namespace of the leader Lease.")
	fs.StringVar(&o.leName, "leader-election-id", "setpoint-leader", "Name of the leader Lease.")
	fs.StringVar(&o.leIdentity, "leader-election-identity", "", "Identity in the Lease; default hostname_uuid.")
	fs.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "How long a Lease is valid without renewal.")
	fs.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", 10*time.Second, "How long the leader retries renewing before giving up.")
	fs.DurationVar(&o.retryPeriod, "leader-elect-retry-period", 2*time.Second, "How often to try to acquire or renew the Lease.")
}

func (o *options) validate() error {
	if o.clusterWorkers < 1 || o.databaseWorkers < 1 {
		return fmt.Errorf("--cluster-workers and --database-workers must be at least 1")
	}
	if (o.sampleInterval != 0 && o.sampleInterval < time.Second) || o.sampleWorkers < 1 || o.nearlyFull < 1 || o.nearlyFull > 100 {
		return fmt.Errorf("--postgres-sample-interval must be 0 (off) or at least 1s, --postgres-sample-workers at least 1, --storage-nearly-full-percent within 1-100")
	}
	if _, err := o.watched(); err != nil {
		return err
	}
	if _, err := o.selector(); err != nil {
		return err
	}
	if o.memoryReturn != 0 && o.memoryReturn < time.Second {
		return fmt.Errorf("--memory-return-period must be 0 (off) or at least 1s")
	}
	if o.leaderElect {
		if err := validateLeaseTiming(o.leaseDuration, o.renewDeadline, o.retryPeriod); err != nil {
			return err
		}
	}
	return nil
}

func (o *options) config() (operator.Config, error) {
	watched, err := o.watched()
	if err != nil {
		return operator.Config{}, err
	}
	selector, err := o.selector()
	if err != nil {
		return operator.Config{}, err
	}
	var rc *rest.Config
	if o.kubeconfig != "" {
		rc, err = clientcmd.BuildConfigFromFlags("", o.kubeconfig)
	} else {
		rc, err = rest.InClusterConfig()
	}
	if err != nil {
		return operator.Config{}, fmt.Errorf("load client configuration: %w", err)
	}
	rc.QPS, rc.Burst = float32(o.qps), o.burst
	return operator.Config{
		Rest:                   rc,
		Namespace:              o.namespace,
		WatchNamespaces:        watched,
		WatchNamespaceSelector: selector,
		ClusterWorkers:         o.clusterWorkers,
		DatabaseWorkers:        o.databaseWorkers,
		Resync:                 o.resync,
		LeaderElect:            o.leaderElect,
		LeaderElection: leaderelection.Config{
			Namespace: o.leNamespace, Name: o.leName, Identity: o.leIdentity,
			LeaseDuration: o.leaseDuration, RenewDeadline: o.renewDeadline, RetryPeriod: o.retryPeriod,
		},
		MetricsAddr:     o.metricsAddr,
		HealthAddr:      o.healthAddr,
		ProfilingAddr:   o.profilingAddr,
		MemoryReturn:    o.memoryReturn,
		MetricsSecure:   o.metricsSecure,
		MetricsCertDir:  o.metricsCertDir,
		PostgresHostMap: o.hostMap,
		PostgresTimeout: o.pgTimeout,
		ClientCAGrace:   o.clientCAGrace,
		Collector: collector.Options{
			Interval: o.sampleInterval, Workers: o.sampleWorkers, NearlyFull: float64(o.nearlyFull) / 100,
		},
		CollectorOff: o.sampleInterval == 0,
	}, nil
}

// watched parses --watch-namespaces: namespace names, each once.
func (o *options) watched() ([]string, error) {
	if o.watchNamespaces == "" {
		return nil, nil
	}
	if o.namespace != "" {
		return nil, fmt.Errorf("--namespace and --watch-namespaces exclude each other")
	}
	var out []string
	for _, ns := range strings.Split(o.watchNamespaces, ",") {
		ns = strings.TrimSpace(ns)
		if errs := validation.IsDNS1123Label(ns); len(errs) != 0 {
			return nil, fmt.Errorf("--watch-namespaces: %q is not a namespace name: %s", ns, strings.Join(errs, "; "))
		}
		if slices.Contains(out, ns) {
			return nil, fmt.Errorf("--watch-namespaces: %q is listed twice", ns)
		}
		out = append(out, ns)
	}
	return out, nil
}

// selector parses --watch-namespace-selector; nil when unset. A selector
// that matches every namespace is refused: that is a cluster-wide install
// (leave both flags empty), with none of a namespaced one's limits.
func (o *options) selector() (labels.Selector, error) {
	if o.watchSelector == "" {
		return nil, nil
	}
	if o.namespace != "" {
		return nil, fmt.Errorf("--namespace and --watch-namespace-selector exclude each other")
	}
	sel, err := labels.Parse(o.watchSelector)
	if err != nil {
		return nil, fmt.Errorf("--watch-namespace-selector: %w", err)
	}
	if sel.Empty() {
		return nil, fmt.Errorf("--watch-namespace-selector %q selects every namespace: leave it empty for a cluster-wide install", o.watchSelector)
	}
	return sel, nil
}
