package operator

import (
	"context"
	"sync"

	"k8s.io/apimachinery/pkg/labels"
)

// A namespaceSet runs one scope per namespace that
// --watch-namespace-selector selects, for as long as it is selected: a
// namespace that gains the labels joins (its scope starts: informers of
// that namespace only, controllers, collector), one that loses them, or
// is deleted, leaves (its scope stops; nothing it made is deleted, it is
// simply no longer reconciled). A namespace being deleted stays until it
// is gone, so the finalizers of what is in it are still removed.
// Namespaces of --watch-namespaces run their scopes for the whole run,
// never here.
//
// Events come from one informer handler, so in order; a scope starts and
// stops in goroutines of its own, and a namespace that rejoins while its
// last scope is still stopping starts anew only once that one is done:
// two scopes never reconcile one namespace at once.
type namespaceSet struct {
	sel   labels.Selector
	fixed map[string]bool
	// launch runs the scope of ns until ctx ends, and returns once its
	// workers are done.
	launch func(ctx context.Context, ns string)
	ctx    context.Context

	mu      sync.Mutex
	running map[string]*member
	stopped bool
	wg      sync.WaitGroup
}

// member is a namespace's running scope.
type member struct {
	cancel context.CancelFunc
	done   chan struct{}
}

func newNamespaceSet(ctx context.Context, sel labels.Selector, fixed []string, launch func(context.Context, string)) *namespaceSet {
	s := &namespaceSet{sel: sel, fixed: map[string]bool{}, launch: launch, ctx: ctx, running: map[string]*member{}}
	for _, ns := range fixed {
		s.fixed[ns] = true
	}
	return s
}

// observe is a namespace added or updated with these labels: it joins if
// the selector matches them, and leaves if it no longer does.
func (s *namespaceSet) observe(ns string, l map[string]string) {
	if s.sel.Matches(labels.Set(l)) {
		s.join(ns)
	} else {
		s.leave(ns)
	}
}

// join starts ns's scope unless it runs (or is a fixed namespace).
func (s *namespaceSet) join(ns string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped || s.fixed[ns] {
		return
	}
	prev := s.running[ns]
	if prev != nil && prev.cancel != nil {
		return // running
	}
	ctx, cancel := context.WithCancel(s.ctx)
	m := &member{cancel: cancel, done: make(chan struct{})}
	s.running[ns] = m
	s.wg.Go(func() {
		defer close(m.done)
		defer cancel()
		if prev != nil { // still stopping
			<-prev.done
		}
		if ctx.Err() == nil {
			s.launch(ctx, ns)
		}
	})
}

// leave stops ns's scope, without waiting for it: a later join waits.
func (s *namespaceSet) leave(ns string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	m := s.running[ns]
	if m == nil || m.cancel == nil {
		return
	}
	m.cancel()
	// Kept, without its cancel, until it is done: a rejoin waits for it.
	stopping := &member{done: m.done}
	s.running[ns] = stopping
	go func() {
		<-stopping.done
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.running[ns] == stopping {
			delete(s.running, ns)
		}
	}()
}

// members are the namespaces whose scopes run or are starting.
func (s *namespaceSet) members() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for ns, m := range s.running {
		if m.cancel != nil {
			out = append(out, ns)
		}
	}
	return out
}

// stop stops every scope and waits until all are done; nothing joins
// after.
func (s *namespaceSet) stop() {
	s.mu.Lock()
	s.stopped = true
	for _, m := range s.running {
		if m.cancel != nil {
			m.cancel()
		}
	}
	s.mu.Unlock()
	s.wg.Wait()
}
