package operator

import (
	"time"

	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/collector"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/leaderelection"
)

// FieldManager is setpoint's server-side apply field manager and user agent.
const FieldManager = ownership.FieldManager

// Config is everything Run needs.
type Config struct {
	Rest *rest.Config
	// Namespace limits the operator's caches to one namespace; "" watches
	// all. Everything else stays cluster-wide (the class-in-use
	// finalizer): a development aid.
	Namespace string
	// WatchNamespaces makes the operator namespace-scoped: one set of
	// informers and controllers per namespace listed, no cluster-wide
	// list or watch but of classes, which it only reads. The command
	// line refuses it beside Namespace.
	WatchNamespaces []string
	// WatchNamespaceSelector, when set, also runs one set of informers
	// and controllers per namespace whose labels it matches, started and
	// stopped as namespaces are labelled and unlabelled; only Namespaces'
	// metadata (label-selected) is watched cluster-wide. Like
	// WatchNamespaces it makes the operator namespace-scoped (classes only
	// read), and the command line refuses it beside Namespace.
	WatchNamespaceSelector labels.Selector
	// ClusterWorkers and DatabaseWorkers are the workers per controller.
	ClusterWorkers  int
	DatabaseWorkers int
	// Resync is the informers' resync period.
	Resync time.Duration
	// LeaderElect turns leader election on; LeaderElection configures it.
	LeaderElect    bool
	LeaderElection leaderelection.Config
	// MetricsAddr and HealthAddr are listen addresses; "" or "0" disables.
	MetricsAddr string
	HealthAddr  string
	// ProfilingAddr serves Go's profiles (/debug/pprof/); "" or "0", the
	// default, disables it.
	ProfilingAddr string
	// MemoryReturn is how long allocation must be quiet after a burst of
	// work before freed heap memory goes back to the OS; 0 turns it off.
	MemoryReturn time.Duration
	// MetricsSecure serves /metrics over HTTPS, each request authenticated
	// (TokenReview) and authorized (SubjectAccessReview) by the API server.
	// Off, /metrics is plain HTTP for anyone, for local runs.
	MetricsSecure bool
	// MetricsCertDir holds tls.crt and tls.key for /metrics; "" generates
	// a self-signed certificate at start.
	MetricsCertDir string
	// PostgresHostMap is a JSON file mapping service addresses to local
	// ones, for running outside a Kubernetes cluster.
	PostgresHostMap string
	// PostgresTimeout bounds each connection attempt and statement.
	PostgresTimeout time.Duration
	// ClientCAGrace: see controller.Config.
	ClientCAGrace time.Duration
	// Collector tunes the background Postgres health collector (its
	// Timeout is PostgresTimeout).
	Collector collector.Options
	// CollectorOff runs no collector: no health conditions, no gauges,
	// and storage auto-grow never sees a usage to act on. For a platform
	// that samples Postgres with its own exporter, and for the bench,
	// whose shared backend makes every sample measure all clusters'
	// databases.
	CollectorOff bool
}

// namespaceScoped: the operator watches some namespaces, never all, so it
// cannot know every PostgresCluster of a class.
func (c Config) namespaceScoped() bool {
	return len(c.WatchNamespaces) != 0 || c.WatchNamespaceSelector != nil
}
