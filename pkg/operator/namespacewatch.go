package operator

import (
	"context"
	"fmt"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/tools/cache"
)

// namespacesResource is the one kind a --watch-namespace-selector install
// lists and watches cluster-wide.
var namespacesResource = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}

// watchNamespaces feeds set from a metadata-only informer of the
// Namespaces sel selects (the API server filters by the labels, so the
// cache holds only those, and only their metadata), and returns once it
// has seen the initial list. The informer stops when ctx ends.
//
// A Namespace whose labels stop matching arrives as a delete (the
// server-side selector no longer passes it); set.observe judges the
// labels again all the same, so the set's rule is one place.
func watchNamespaces(ctx context.Context, client metadata.Interface, sel labels.Selector, resync time.Duration, set *namespaceSet) error {
	inf := metadatainformer.NewFilteredMetadataInformer(client, namespacesResource, "", resync, cache.Indexers{},
		func(o *metav1.ListOptions) { o.LabelSelector = sel.String() }).Informer()
	_ = inf.SetTransform(func(obj any) (any, error) {
		if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
			// Only the name and labels are read.
			m.ManagedFields, m.Annotations = nil, nil
		}
		return obj, nil
	})
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { observeNamespace(set, obj) },
		UpdateFunc: func(_, obj any) { observeNamespace(set, obj) },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
				set.leave(m.Name)
			}
		},
	})
	if err != nil {
		return fmt.Errorf("register the Namespace handler: %w", err)
	}
	go inf.RunWithContext(ctx)
	if !cache.WaitForNamedCacheSyncWithContext(ctx, reg.HasSynced) {
		return fmt.Errorf("the Namespace cache (--watch-namespace-selector %q) did not sync", sel.String())
	}
	return nil
}

func observeNamespace(set *namespaceSet, obj any) {
	if m, ok := obj.(*metav1.PartialObjectMetadata); ok {
		set.observe(m.Name, m.Labels)
	}
}
