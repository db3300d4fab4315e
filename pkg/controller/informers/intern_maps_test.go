package informers

import (
	"fmt"
	"maps"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

func sameMap(a, b map[string]string) bool {
	return reflect.ValueOf(a).UnsafePointer() == reflect.ValueOf(b).UnsafePointer()
}

// The objects of one database share one labels map and one annotations
// map; an object with other labels keeps a map of its own, with its own
// content.
func TestObjectsWithEqualLabelsShareOneMap(t *testing.T) {
	in := &interner{}
	secret := &corev1.Secret{ObjectMeta: childMeta("orders-app", "orders")}
	cm := &corev1.ConfigMap{ObjectMeta: childMeta("orders-conn", "orders")}
	other := &corev1.Secret{ObjectMeta: childMeta("billing-app", "billing")}
	want := maps.Clone(other.Labels)
	for _, o := range []any{secret, cm, other} {
		if _, err := in.trimForCache(o); err != nil {
			t.Fatal(err)
		}
	}
	if !sameMap(secret.Labels, cm.Labels) || !sameMap(secret.Annotations, cm.Annotations) {
		t.Error("equal labels or annotations kept in two maps")
	}
	if sameMap(secret.Labels, other.Labels) || !maps.Equal(other.Labels, want) {
		t.Errorf("another database's labels %v share the map %v", other.Labels, secret.Labels)
	}
	for k, v := range secret.Labels {
		if k2, v2 := keyOf(cm.Labels, k); !same(k, k2) || !same(v, v2) {
			t.Errorf("label %s=%s not interned", k, v)
		}
	}
}

func keyOf(m map[string]string, key string) (string, string) {
	for k, v := range m {
		if k == key {
			return k, v
		}
	}
	return "", ""
}

// Maps whose contents differ never share, whatever their order or
// sizes; empty and nil maps stay as decoded.
func TestSharedMapKeepsContent(t *testing.T) {
	in := &interner{}
	cases := []map[string]string{
		{"a": "1", "b": "2"}, {"b": "2", "a": "1"}, {"a": "2", "b": "1"}, {"a": "1"}, {"a": "1", "b": "2", "c": ""},
		{"a\x001": ""}, {"a": "\x001"},
	}
	got := make([]map[string]string, len(cases))
	for i, m := range cases {
		got[i] = in.sharedMap(maps.Clone(m))
		if !maps.Equal(got[i], m) {
			t.Errorf("sharedMap(%v) = %v", m, got[i])
		}
	}
	if !sameMap(got[0], got[1]) {
		t.Error("one content in two orders kept in two maps")
	}
	for i := 2; i < len(cases); i++ {
		if sameMap(got[i], got[0]) {
			t.Errorf("%v shares the map of %v", cases[i], cases[0])
		}
	}
	if m := in.sharedMap(nil); m != nil {
		t.Errorf("nil became %v", m)
	}
	if m := in.sharedMap(map[string]string{}); m == nil {
		t.Error("an empty map became nil")
	}
}

func TestSharedMapsAreBounded(t *testing.T) {
	in := &interner{}
	for i := range maxInternedMaps + 10 {
		in.sharedMap(map[string]string{"n": fmt.Sprint(i)})
	}
	if n := len(in.maps); n > maxInternedMaps || n == 0 {
		t.Errorf("table holds %d maps, bound %d", n, maxInternedMaps)
	}
}
