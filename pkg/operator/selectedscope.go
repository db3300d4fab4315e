package operator

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/klog/v2"
)

// runSelected runs the scopes of the namespaces --watch-namespace-selector
// selects, started and stopped as namespaces join and leave, until ctx
// ends; a scope's controller error ends the whole run through fail, as a
// fixed scope's does. It returns once the Namespace cache has synced;
// the returned stop stops every scope and waits for them.
func (c *controllers) runSelected(ctx context.Context, installed apis, shared scopeShared, fail context.CancelCauseFunc) (stop func(), err error) {
	launch := func(ctx context.Context, ns string) {
		if err := c.runSelectedScope(ctx, ns, installed, shared); err != nil && ctx.Err() == nil {
			fail(err)
		}
	}
	set := newNamespaceSet(ctx, c.cfg.WatchNamespaceSelector, c.cfg.WatchNamespaces, launch)
	if err := watchNamespaces(ctx, c.meta, c.cfg.WatchNamespaceSelector, c.cfg.Resync, set); err != nil {
		set.stop()
		return nil, err
	}
	klog.FromContext(ctx).Info("Watching the Namespaces the selector selects", "selector", c.cfg.WatchNamespaceSelector.String(), "selected", len(set.members()))
	return set.stop, nil
}

// runSelectedScope runs ns's scope until ctx ends (ns left the set),
// then stops its workers, its informers (their watches end) and its
// state metrics. Its caches sync only once the install may list the
// namespace (a RoleBinding there, for a namespace-scoped install); until
// then the informers retry and the scope's workers wait.
func (c *controllers) runSelectedScope(ctx context.Context, ns string, installed apis, shared scopeShared) error {
	logger := klog.FromContext(ctx).WithValues("namespace", ns)
	sc, err := c.newScope(ns, installed, shared)
	if err != nil {
		return fmt.Errorf("namespace %s: %w", ns, err)
	}
	c.selected.Inc()
	defer c.selected.Dec()
	defer c.sm.Add(sc.stateSource())()
	defer sc.inf.Shutdown()
	logger.Info("Namespace selected; starting its informers and controllers")
	defer logger.Info("Namespace no longer selected; its informers and controllers stopped, nothing in it deleted")
	if err := sc.inf.Start(ctx); err != nil {
		return fmt.Errorf("namespace %s: %w", ns, err)
	}
	logger.Info("Namespace's caches synced; starting its workers")
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	sc.run(ctx, &wg, errs, c.cfg)
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			return fmt.Errorf("namespace %s: %w", ns, err)
		}
	}
	return nil
}
