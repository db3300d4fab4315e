package informers

import (
	"hash/maphash"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	v1alpha1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Decoding gives every cached object its own copy of each string, though
// most of them repeat across objects: the namespace, label keys and values
// (the cluster and database an object belongs to), owner references,
// condition types and reasons, data keys. An interner keeps one copy of
// each so the cache holds it once; strings are immutable, so sharing one
// copy is invisible to readers.
//
// The table is bounded: when it holds maxInterned strings it starts over
// (objects keep the copies they have; new ones share a new set), so
// strings that never repeat cost at most one table's worth.
const (
	maxInterned    = 8192
	maxInternedLen = 64
)

// interner is the shared copy of each string, one per set of informers
// (NewInformers).
type interner struct {
	mu sync.Mutex
	m  map[string]string
	// maps holds one map per distinct labels or annotations content, by
	// contentHash (intern_maps.go).
	maps    map[uint64]map[string]string
	mapSeed maphash.Seed
}

// internObject replaces the repeated strings of a cached object by their
// shared copies and trims its lists to their length (clip). Kinds it does
// not know keep all but their object metadata as decoded.
func (in *interner) internObject(obj any) {
	in.mu.Lock()
	defer in.mu.Unlock()
	if acc, ok := obj.(metav1.ObjectMetaAccessor); ok {
		if m, ok := acc.GetObjectMeta().(*metav1.ObjectMeta); ok {
			in.meta(m)
		}
	}
	// Objects from a watch carry their kind and API version.
	if o, ok := obj.(runtime.Object); ok {
		if tm, ok := o.GetObjectKind().(*metav1.TypeMeta); ok {
			tm.APIVersion, tm.Kind = in.s(tm.APIVersion), in.s(tm.Kind)
		}
	}
	switch o := obj.(type) {
	case *corev1.Secret:
		o.Type = corev1.SecretType(in.s(string(o.Type)))
		o.Data = internKeys(in, o.Data)
	case *corev1.ConfigMap:
		// Read only as CachedConfigMap (configmap_cached.go), which
		// has neither field.
		o.Data = digestData(o.Data) // configmap_data.go
		o.BinaryData = nil          // setpoint writes none
	case *v1alpha1.PostgresDatabase:
		o.Spec.Databases = clip(o.Spec.Databases)
		o.Status.Databases = clip(o.Status.Databases)
		for i := range o.Status.Databases {
			o.Status.Databases[i].Roles = clip(o.Status.Databases[i].Roles)
		}
		o.Status.Conditions = in.conditions(o.Status.Conditions)
	case *v1alpha1.PostgresCluster:
		o.Status.Conditions = in.conditions(o.Status.Conditions)
	case *cnpgv1.Cluster:
		o.Status.Conditions = in.conditions(o.Status.Conditions)
	case *cnpgv1.DatabaseRole:
		// Never read: CNPG's operator keeps the password Secret's version
		// there, and setpoint reads the one the instance manager applied
		// (status.secretResourceVersion). Dropped, an update of it alone
		// wakes nobody (IgnoreUnread). The API type stays: a nil list here
		// means "not kept", and nothing reads it (doc.go).
		o.Status.Conditions = nil
		o.Spec.Cluster.Name = in.s(o.Spec.Cluster.Name)
		// A database's three roles carry one ownership comment.
		o.Spec.Comment = in.s(o.Spec.Comment)
		o.Spec.Ensure = cnpgv1.EnsureOption(in.s(string(o.Spec.Ensure)))
		o.Spec.DatabaseRoleReclaimPolicy = in.s(o.Spec.DatabaseRoleReclaimPolicy)
		o.Spec.InRoles = clip(o.Spec.InRoles)
		for i, r := range o.Spec.InRoles {
			o.Spec.InRoles[i] = in.s(r)
		}
	case *cnpgv1.Database:
		o.Spec.Cluster.Name = in.s(o.Spec.Cluster.Name)
		o.Spec.Ensure = cnpgv1.EnsureOption(in.s(string(o.Spec.Ensure)))
		o.Spec.DatabaseReclaimPolicy = in.s(o.Spec.DatabaseReclaimPolicy)
	}
}

// meta interns what objects share: namespace, labels, annotations, owner
// references and finalizers; never the object's own name or UID.
func (in *interner) meta(m *metav1.ObjectMeta) {
	m.Namespace = in.s(m.Namespace)
	m.Labels = in.sharedMap(m.Labels)
	m.Annotations = in.sharedMap(m.Annotations)
	m.OwnerReferences = clip(m.OwnerReferences)
	m.Finalizers = clip(m.Finalizers)
	for i := range m.OwnerReferences {
		r := &m.OwnerReferences[i]
		r.APIVersion, r.Kind, r.Name = in.s(r.APIVersion), in.s(r.Kind), in.s(r.Name)
	}
	for i, f := range m.Finalizers {
		m.Finalizers[i] = in.s(f)
	}
}

func (in *interner) conditions(cs []metav1.Condition) []metav1.Condition {
	cs = clip(cs)
	for i := range cs {
		c := &cs[i]
		c.Type, c.Reason, c.Message = in.s(c.Type), in.s(c.Reason), in.s(c.Message)
		c.Status = metav1.ConditionStatus(in.s(string(c.Status)))
	}
	return cs
}

// clip returns s in an array of its own length. JSON decoding grows a
// slice by half again (at least 4), so a single owner reference or
// finalizer sat in room for four.
func clip[T any](s []T) []T {
	if len(s) == cap(s) {
		return s
	}
	return append(make([]T, 0, len(s)), s...)
}

// stringMap returns m with its keys and values interned (a new map: a
// key cannot be replaced in place).
func (in *interner) stringMap(m map[string]string) map[string]string {
	if len(m) == 0 {
		return m
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[in.s(k)] = in.s(v)
	}
	return out
}

// internKeys interns a map's keys; its values stay as they are.
func internKeys[V any](in *interner, m map[string]V) map[string]V {
	if len(m) == 0 {
		return m
	}
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[in.s(k)] = v
	}
	return out
}

// s returns the shared copy of v. Long strings are rarely repeated and
// kept as they are. The caller holds mu.
func (in *interner) s(v string) string {
	if v == "" || len(v) > maxInternedLen {
		return v
	}
	if c, ok := in.m[v]; ok {
		return c
	}
	if in.m == nil || len(in.m) >= maxInterned {
		in.m = make(map[string]string, 256)
	}
	// A copy of its own: v may share the bytes of a larger string the
	// table must not keep alive.
	v = strings.Clone(v)
	in.m[v] = v
	return v
}
