package informers

import (
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/cache"
)

// IgnoreUnread wraps h so that an update whose cached objects differ only
// in resourceVersion reaches it not at all: what changed is something the
// informer's transform dropped because setpoint never reads it
// (managedFields, kubectl's last-applied copy, a DatabaseRole's
// conditions), so a pass would find nothing new. CNPG writes a
// DatabaseRole three times on its way to applied (its password condition,
// its finalizer, its status); at 100 × 10 the first of those alone woke
// 2,200 passes of workers that were the bench's bottleneck.
//
// Not a cache-lag rule (cachelag.Expectations): an update dropped here
// is one the cache holds all the same, so a pass woken by anything else
// reads it; what is spared is a pass, never a fact.
func IgnoreUnread(h cache.ResourceEventHandler) cache.ResourceEventHandler {
	return IgnoreUpdates(h, onlyVersionChanged)
}

// IgnoreUpdates wraps h so that an update for which unread(old, new)
// holds reaches it not at all: what changed is nothing the controller
// behind h reads of that object. Adds and deletions pass.
func IgnoreUpdates(h cache.ResourceEventHandler, unread func(oldObj, newObj any) bool) cache.ResourceEventHandler {
	return ignoreUpdates{h, unread}
}

type ignoreUpdates struct {
	cache.ResourceEventHandler
	unread func(oldObj, newObj any) bool
}

func (i ignoreUpdates) OnUpdate(oldObj, newObj any) {
	if !i.unread(oldObj, newObj) {
		i.ResourceEventHandler.OnUpdate(oldObj, newObj)
	}
}

func onlyVersionChanged(oldObj, newObj any) bool {
	o, ok1 := oldObj.(runtime.Object)
	n, ok2 := newObj.(runtime.Object)
	if !ok1 || !ok2 {
		return false
	}
	om, ok1 := metaOf(o)
	nm, ok2 := metaOf(n)
	if !ok1 || !ok2 || om.GetResourceVersion() == nm.GetResourceVersion() {
		return false // a resync: the wrapped handler decides
	}
	c := o.DeepCopyObject()
	cm, _ := metaOf(c)
	cm.SetResourceVersion(nm.GetResourceVersion())
	return equality.Semantic.DeepEqual(c, n)
}
