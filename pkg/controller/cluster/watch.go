package cluster

import (
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
)

// wiring is what a component needs to cache its own children: the shared
// informers, the handler that sends an owned child's events to the
// PostgresCluster controlling it, and the enqueue behind both.
type wiring struct {
	inf     *informers.Informers
	owned   cache.ResourceEventHandler
	enqueue informers.Enqueue
}

// A watcher is a component that reads its own children. Watch, called
// once by New before the informers start, registers the component's event
// handlers and returns the reader that puts those children into every
// snapshot: a pass's (observe) and a teardown's. Children several
// components read (the CNPG Cluster, the superuser Secret, the
// ObjectStore, the ConfigMap) stay in snapshot.go. A component whose kind
// is another project's CRD declares it too (needsAPI, optional_apis.go):
// the operator discovers it, and Watch asks the informers whether it is
// served.
type watcher interface {
	Watch(w wiring) (reader, []informers.Registration)
}

// reader adds a component's children, from its caches, to a snapshot
// being built. Not-found is no error: the part stays empty.
type reader func(pc *pgv1.PostgresCluster, o *observation) error

// part is one component's share of the snapshot: what its reader found,
// kept on the observation without the observation naming its type. Only
// a reader sets it, while the snapshot is built; the pass only reads it.
type part[T any] struct{ name string }

func (k part[T]) of(o *observation) T {
	v, _ := o.parts[k.name].(T)
	return v
}

func (k part[T]) set(o *observation, v T) {
	if o.parts == nil {
		o.parts = map[string]any{}
	}
	o.parts[k.name] = v
}

// watchComponents lets every watcher among the components register its
// handlers, and returns their readers in pipeline order.
func watchComponents(all []component, w wiring) ([]reader, []informers.Registration) {
	var readers []reader
	var regs []informers.Registration
	for _, comp := range all {
		if cw, ok := comp.(watcher); ok {
			r, rs := cw.Watch(w)
			readers = append(readers, r)
			regs = append(regs, rs...)
		}
	}
	return readers, regs
}
