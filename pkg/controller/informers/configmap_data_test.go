package informers

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// A cached ConfigMap compares equal to exactly the data it was cached
// with, whatever the order; one read from the API server compares as is.
func TestDataEqualReadsTheDigest(t *testing.T) {
	data := map[string]string{"host": "main-rw", "port": "5432", "ro-user": "orders_ro"}
	cached := &corev1.ConfigMap{Data: digestData(maps.Clone(data))}
	if DataKnown(cached) {
		t.Error("a cached ConfigMap claims to carry its data")
	}
	if !DataEqual(cached, map[string]string{"ro-user": "orders_ro", "port": "5432", "host": "main-rw"}) {
		t.Error("the data it was cached with reads as different")
	}
	for name, other := range map[string]map[string]string{
		"a value changed": {"host": "main-rw", "port": "5433", "ro-user": "orders_ro"},
		"a key fewer":     {"host": "main-rw", "port": "5432"},
		"a key more":      {"host": "main-rw", "port": "5432", "ro-user": "orders_ro", "x": ""},
		"moved bytes":     {"host": "main-rw\x00port", "port": "", "ro-user": "orders_ro"},
		"nothing":         nil,
		"the digest":      cached.Data,
	} {
		if DataEqual(cached, other) {
			t.Errorf("%s: %v reads as the cached data", name, other)
		}
	}
	live := &corev1.ConfigMap{Data: maps.Clone(data)}
	if !DataKnown(live) || !DataEqual(live, data) || DataEqual(live, map[string]string{"host": "main-rw"}) {
		t.Error("a ConfigMap from the API server is not compared as it is")
	}
	empty := &corev1.ConfigMap{Data: digestData(nil)}
	if !DataKnown(empty) || !DataEqual(empty, nil) || DataEqual(empty, data) {
		t.Error("a ConfigMap without data is not compared as it is")
	}
}
