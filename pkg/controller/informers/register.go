package informers

import (
	"fmt"

	"k8s.io/client-go/tools/cache"
)

// Registration is one event handler on one informer.
type Registration struct {
	Informer cache.SharedIndexInformer
	Handler  cache.ResourceEventHandler
}

// On pairs an informer with a handler.
func On(inf cache.SharedIndexInformer, h cache.ResourceEventHandler) Registration {
	return Registration{Informer: inf, Handler: h}
}

// Register adds every handler and returns their HasSynced funcs: a
// controller's workers start only once its own handlers have seen the
// initial list.
//
// The handlers of one informer are added as one, which calls them in the
// order given: client-go gives each added handler a listener of its own,
// two goroutines and a buffer of 1,024 events allocated up front (16 KiB),
// and the cluster controller alone has some 25 handlers on 14 informers.
// Per namespace of a namespace-scoped install that was half of the
// operator's heap (docs/benchmarks/README.md, "Memory of the namespace selector"). The
// handlers only enqueue keys, so one listener delays none of them.
func Register(regs []Registration) ([]cache.InformerSynced, error) {
	var order []cache.SharedIndexInformer
	handlers := map[cache.SharedIndexInformer]fanOut{}
	for _, r := range regs {
		if _, seen := handlers[r.Informer]; !seen {
			order = append(order, r.Informer)
		}
		handlers[r.Informer] = append(handlers[r.Informer], r.Handler)
	}
	synced := make([]cache.InformerSynced, 0, len(order))
	for _, inf := range order {
		var h cache.ResourceEventHandler = handlers[inf]
		if hs := handlers[inf]; len(hs) == 1 {
			h = hs[0]
		}
		reg, err := inf.AddEventHandler(h)
		if err != nil {
			return nil, fmt.Errorf("register event handler: %w", err)
		}
		synced = append(synced, reg.HasSynced)
	}
	return synced, nil
}

// fanOut is the handlers of one informer, called in order.
type fanOut []cache.ResourceEventHandler

func (f fanOut) OnAdd(obj any, isInInitialList bool) {
	for _, h := range f {
		h.OnAdd(obj, isInInitialList)
	}
}

func (f fanOut) OnUpdate(oldObj, newObj any) {
	for _, h := range f {
		h.OnUpdate(oldObj, newObj)
	}
}

func (f fanOut) OnDelete(obj any) {
	for _, h := range f {
		h.OnDelete(obj)
	}
}
