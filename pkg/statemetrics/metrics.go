package statemetrics

import (
	"strings"
	"sync"

	"github.com/prometheus/client_golang/prometheus"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	listers "github.com/setpoint-dev/setpoint/pkg/generated/listers/postgres/v1alpha1"
)

// Phases are every phase a phase metric has a series for: a fixed set, so
// an object has exactly len(Phases) phase series (0 for every phase
// before its first status).
var Phases = []pgv1.Phase{pgv1.PhasePending, pgv1.PhaseProvisioning, pgv1.PhaseConfiguring,
	pgv1.PhaseReady, pgv1.PhaseFailed, pgv1.PhaseDeleting}

// Source is one scope's caches (one watched namespace, or all).
type Source struct {
	Clusters  listers.PostgresClusterLister
	Databases listers.PostgresDatabaseLister
}

// Metrics is a prometheus.Collector of the state of the objects in the
// sources currently added. Create it once per process.
type Metrics struct {
	clusters, databases kindDescs

	mu      sync.Mutex
	sources map[*Source]struct{}
}

// kindDescs are the two metrics of one kind.
type kindDescs struct{ phase, condition *prometheus.Desc }

// descsOf names the metrics of a kind setpoint_<prefix>_status_*, its
// objects labelled by label.
func descsOf(prefix, kind, label string) kindDescs {
	return kindDescs{
		phase: prometheus.NewDesc("setpoint_"+prefix+"_status_phase",
			"1 for the "+kind+"'s current phase (status.phase), 0 for each other phase; every phase 0 before the first status.",
			[]string{LabelNamespace, label, "phase"}, nil),
		condition: prometheus.NewDesc("setpoint_"+prefix+"_status_condition",
			"1 for each condition the "+kind+"'s status holds, labelled by its type, status (true, false, unknown) and reason.",
			[]string{LabelNamespace, label, "condition", "status", "reason"}, nil),
	}
}

// New registers the state metrics with reg.
func New(reg prometheus.Registerer) *Metrics {
	m := &Metrics{
		clusters:  descsOf("cluster", "PostgresCluster", LabelCluster),
		databases: descsOf("database", "PostgresDatabase", LabelDatabase),
		sources:   map[*Source]struct{}{},
	}
	reg.MustRegister(m)
	return m
}

// MetricKind is the metrics' type, for the generated reference.
func (*Metrics) MetricKind() string { return "gauge" }

// Add exports the objects of s until the returned function is called (when
// the caches stop: the replica no longer leads).
func (m *Metrics) Add(s *Source) (remove func()) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sources[s] = struct{}{}
	return func() {
		m.mu.Lock()
		defer m.mu.Unlock()
		delete(m.sources, s)
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []kindDescs{m.clusters, m.databases} {
		ch <- d.phase
		ch <- d.condition
	}
}

// Collect implements prometheus.Collector.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for s := range m.sources {
		if s.Clusters != nil {
			pcs, _ := s.Clusters.List(labels.Everything())
			for _, pc := range pcs {
				m.clusters.object(ch, pc.Namespace, pc.Name, pc.Status.Phase, pc.Status.Conditions)
			}
		}
		if s.Databases != nil {
			dbs, _ := s.Databases.List(labels.Everything())
			for _, db := range dbs {
				m.databases.object(ch, db.Namespace, db.Name, db.Status.Phase, db.Status.Conditions)
			}
		}
	}
}

// object sends one object's phase and condition series.
func (d kindDescs) object(ch chan<- prometheus.Metric, ns, name string, current pgv1.Phase, conds []metav1.Condition) {
	for _, p := range Phases {
		v := 0.0
		if p == current {
			v = 1
		}
		ch <- prometheus.MustNewConstMetric(d.phase, prometheus.GaugeValue, v, ns, name, string(p))
	}
	for _, c := range conds {
		ch <- prometheus.MustNewConstMetric(d.condition, prometheus.GaugeValue, 1,
			ns, name, c.Type, strings.ToLower(string(c.Status)), c.Reason)
	}
}
