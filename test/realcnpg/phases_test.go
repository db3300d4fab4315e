package realcnpg

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cluster"
)

// phaseLog records, from the moment it starts, each distinct phase of a
// CNPG Cluster, of its PostgresCluster and of the PostgresDatabases in its
// namespace, in order.
type phaseLog struct {
	mu        sync.Mutex
	cnpg      []string
	clusters  []pgv1.Phase
	databases []pgv1.Phase
	stop      context.CancelFunc
	done      chan struct{}
}

func watchPhases(t *testing.T, ns, name string) *phaseLog {
	ctx, cancel := context.WithCancel(t.Context())
	l := &phaseLog{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(l.done)
		tick := time.NewTicker(200 * time.Millisecond)
		defer tick.Stop()
		for {
			l.sample(ctx, ns, name)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(l.end)
	return l
}

func (l *phaseLog) sample(ctx context.Context, ns, name string) {
	c, err := pg.CNPGV1().Clusters(ns).Get(ctx, name, metav1.GetOptions{})
	pc, perr := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, name, metav1.GetOptions{})
	dbs, derr := pg.PostgresV1alpha1().PostgresDatabases(ns).List(ctx, metav1.ListOptions{})
	l.mu.Lock()
	defer l.mu.Unlock()
	if err == nil && (len(l.cnpg) == 0 || l.cnpg[len(l.cnpg)-1] != c.Status.Phase) {
		l.cnpg = append(l.cnpg, c.Status.Phase)
	}
	if perr == nil && (len(l.clusters) == 0 || l.clusters[len(l.clusters)-1] != pc.Status.Phase) {
		l.clusters = append(l.clusters, pc.Status.Phase)
	}
	if derr == nil {
		for _, d := range dbs.Items {
			if len(l.databases) == 0 || l.databases[len(l.databases)-1] != d.Status.Phase {
				l.databases = append(l.databases, d.Status.Phase)
			}
		}
	}
}

func (l *phaseLog) end() {
	l.stop()
	<-l.done
}

// seen ends the log and returns what it recorded of the CNPG Cluster and
// the PostgresDatabases.
func (l *phaseLog) seen() (cnpg []string, databases []pgv1.Phase) {
	l.end()
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.cnpg), slices.Clone(l.databases)
}

// clusterPhases ends the log and returns the PostgresCluster's phases.
func (l *phaseLog) clusterPhases() []pgv1.Phase {
	l.end()
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.clusters)
}

// knownPhases fails for a CNPG phase setpoint does not map: a string it
// does not know would show as Pending, never Ready.
func knownPhases(t *testing.T, phases []string) {
	t.Helper()
	for _, p := range phases {
		if _, ok := cluster.MapCNPGPhase(p); !ok {
			t.Errorf("real CNPG reported phase %q, which setpoint does not know (seen: %q)", p, phases)
		}
	}
}
