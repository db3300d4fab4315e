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
func Register(regs []Registration) ([]cache.InformerSynced, error) {
	synced := make([]cache.InformerSynced, 0, len(regs))
	for _, r := range regs {
		h, err := r.Informer.AddEventHandler(r.Handler)
		if err != nil {
			return nil, fmt.Errorf("register event handler: %w", err)
		}
		synced = append(synced, h.HasSynced)
	}
	return synced, nil
}
