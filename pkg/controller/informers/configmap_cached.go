package informers

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// CachedConfigMap is what the cache keeps of a ConfigMap: its metadata
// and a digest of its data (configmap_data.go), never the data. It is a
// type of its own so that code cannot read a cached ConfigMap's Data
// believing it is the data: the cached *corev1.ConfigMap has a Data field
// that holds the digest under a key of ours, and nothing in the type said
// so. A writer that needs the keys themselves reads the ConfigMap from
// the API server.
//
// Its metadata is the object's less what the cache drops of every kind
// (managedFields and kubectl's last-applied annotation, trimForCache),
// which setpoint never reads; it is shared with the cache: read-only.
type CachedConfigMap struct {
	metav1.ObjectMeta
	// digest is dataDigest of the data, "" when there is none: the cache
	// keeps empty data as it is.
	digest string
}

// CachedConfigMapOf is what the cache keeps of cm, cm from the cache or
// from the API server alike: a ConfigMap read live compares as the
// cached one would, so a pass judges both the same way.
func CachedConfigMapOf(cm *corev1.ConfigMap) *CachedConfigMap {
	c := &CachedConfigMap{ObjectMeta: cm.ObjectMeta}
	switch {
	case isDigest(cm.Data):
		c.digest = cm.Data[dataDigestKey]
	case len(cm.Data) > 0:
		c.digest = dataDigest(cm.Data)
	}
	return c
}

// HasData reports whether the ConfigMap has any data: the cache knows
// that much, and a writer with no keys to remove need not read them.
func (c *CachedConfigMap) HasData() bool { return c.digest != "" }

// DataEqual reports whether the ConfigMap's data is exactly want.
func (c *CachedConfigMap) DataEqual(want map[string]string) bool {
	if len(want) == 0 {
		return c.digest == ""
	}
	return c.digest == dataDigest(want)
}

// ConfigMapLister reads the ConfigMap cache. It hands out CachedConfigMaps
// only: client-go's lister would hand out the cached *corev1.ConfigMap,
// whose Data is our digest.
type ConfigMapLister struct{ indexer cache.Indexer }

// ConfigMaps is the lister of the ConfigMaps the Kube factory caches (it
// registers the informer, as client-go's Lister() does).
func (i *Informers) ConfigMaps() ConfigMapLister {
	return NewConfigMapLister(i.Kube.Core().V1().ConfigMaps().Informer().GetIndexer())
}

// NewConfigMapLister reads indexer, an informer's cache of ConfigMaps.
func NewConfigMapLister(indexer cache.Indexer) ConfigMapLister {
	return ConfigMapLister{indexer: indexer}
}

// Get is the cached ConfigMap namespace/name, or a NotFound error as
// client-go's lister returns (IgnoreNotFound reads it).
func (l ConfigMapLister) Get(namespace, name string) (*CachedConfigMap, error) {
	obj, exists, err := l.indexer.GetByKey(namespace + "/" + name)
	if err != nil {
		return nil, fmt.Errorf("read ConfigMap %s/%s from the cache: %w", namespace, name, err)
	}
	if !exists {
		return nil, apierrors.NewNotFound(corev1.Resource("configmap"), name)
	}
	cm, ok := obj.(*corev1.ConfigMap)
	if !ok {
		return nil, fmt.Errorf("the ConfigMap cache holds a %T at %s/%s", obj, namespace, name)
	}
	return CachedConfigMapOf(cm), nil
}
