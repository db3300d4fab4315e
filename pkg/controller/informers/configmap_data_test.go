package informers

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
)

// A cached ConfigMap compares equal to exactly the data it was cached
// with, whatever the order; one read from the API server compares the
// same way.
func TestDataEqualReadsTheDigest(t *testing.T) {
	data := map[string]string{"host": "main-rw", "port": "5432", "ro-user": "orders_ro"}
	digested := &corev1.ConfigMap{Data: digestData(maps.Clone(data))}
	cached := CachedConfigMapOf(digested)
	if !cached.HasData() {
		t.Error("a cached ConfigMap with data claims to have none")
	}
	if !cached.DataEqual(map[string]string{"ro-user": "orders_ro", "port": "5432", "host": "main-rw"}) {
		t.Error("the data it was cached with reads as different")
	}
	for name, other := range map[string]map[string]string{
		"a value changed": {"host": "main-rw", "port": "5433", "ro-user": "orders_ro"},
		"a key fewer":     {"host": "main-rw", "port": "5432"},
		"a key more":      {"host": "main-rw", "port": "5432", "ro-user": "orders_ro", "x": ""},
		"moved bytes":     {"host": "main-rw\x00port", "port": "", "ro-user": "orders_ro"},
		"nothing":         nil,
		"the digest":      digested.Data,
	} {
		if cached.DataEqual(other) {
			t.Errorf("%s: %v reads as the cached data", name, other)
		}
	}
	live := CachedConfigMapOf(&corev1.ConfigMap{Data: maps.Clone(data)})
	if !live.HasData() || !live.DataEqual(data) || live.DataEqual(map[string]string{"host": "main-rw"}) {
		t.Error("a ConfigMap from the API server is not compared as the cache would")
	}
	for _, none := range []map[string]string{nil, {}} {
		empty := CachedConfigMapOf(&corev1.ConfigMap{Data: digestData(none)})
		if empty.HasData() || !empty.DataEqual(nil) || !empty.DataEqual(map[string]string{}) || empty.DataEqual(data) {
			t.Errorf("a ConfigMap with data %#v is not compared as having none", none)
		}
	}
}

// The lister hands out what the transform kept, as a CachedConfigMap with
// the object's metadata, and not-found as client-go's lister does.
func TestConfigMapListerHandsOutTheCachedView(t *testing.T) {
	data := map[string]string{"host": "main-rw"}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shop-connection", Namespace: "ns", UID: "uid-cm",
		ResourceVersion: "7", Labels: map[string]string{"app": "shop"}}, Data: maps.Clone(data)}
	obj, err := (&interner{}).trimForCache(cm)
	if err != nil {
		t.Fatal(err)
	}
	idx := EmptyIndexer()
	if err := idx.Add(obj); err != nil {
		t.Fatal(err)
	}
	l := NewConfigMapLister(idx)
	got, err := l.Get("ns", "shop-connection")
	if err != nil {
		t.Fatal(err)
	}
	if got.UID != "uid-cm" || got.ResourceVersion != "7" || got.Labels["app"] != "shop" || !got.DataEqual(data) {
		t.Errorf("cached view %+v does not carry the ConfigMap's metadata and data %v", got, data)
	}
	if _, err := l.Get("other", "shop-connection"); !apierrors.IsNotFound(err) {
		t.Errorf("a ConfigMap in another namespace: %v, want not found", err)
	}
	wrong := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := wrong.Add(&corev1.Secret{ObjectMeta: cm.ObjectMeta}); err != nil {
		t.Fatal(err)
	}
	if _, err := NewConfigMapLister(wrong).Get("ns", "shop-connection"); err == nil || apierrors.IsNotFound(err) {
		t.Errorf("a cache holding a Secret: %v, want an error", err)
	}
}
