package informers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

type keys []workqueue.Key

func (k *keys) add(key workqueue.Key) { *k = append(*k, key) }

func pgc(rv string, gen int64) *pgv1.PostgresCluster {
	return &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{
		Name: "shop", Namespace: "ns", ResourceVersion: rv, Generation: gen, UID: "uid-1",
	}}
}

func TestPrimaryHandlerIgnoresStatusOnlyUpdates(t *testing.T) {
	var got, resynced keys
	h := PrimaryHandler(got.add, resynced.add, "f")
	h.OnAdd(pgc("1", 1), false)
	withFinalizer := pgc("1b", 1)
	withFinalizer.Finalizers = []string{"f"}
	h.OnUpdate(pgc("1", 1), withFinalizer) // our own finalizer added
	status := pgc("2", 1)
	status.Status.Phase = pgv1.PhaseReady
	h.OnUpdate(pgc("1", 1), status)      // status-only: our own write
	h.OnUpdate(pgc("2", 1), pgc("2", 1)) // resync
	h.OnUpdate(pgc("2", 1), pgc("3", 2)) // spec change
	deleting := pgc("4", 2)
	deleting.DeletionTimestamp = &metav1.Time{}
	h.OnUpdate(pgc("3", 2), deleting)
	h.OnDelete(cache.DeletedFinalStateUnknown{Key: "ns/shop", Obj: pgc("5", 2)})
	if len(got) != 4 {
		t.Fatalf("enqueued %d times (%v), want 4: add, spec change, deletion, tombstone", len(got), got)
	}
	if len(resynced) != 1 {
		t.Fatalf("resyncs queued %v, want the one resync", resynced)
	}
}

func TestOwnerHandlerChecksOwnerUID(t *testing.T) {
	var got keys
	lookup := func(ns, name string) (types.UID, bool) { return "uid-1", ns == "ns" && name == "shop" }
	h := OwnerHandler("PostgresCluster", lookup, got.add)
	child := func(uid types.UID, kind string) *corev1.Secret {
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser", Namespace: "ns", ResourceVersion: "1"}}
		s.OwnerReferences = []metav1.OwnerReference{{Kind: kind, Name: "shop", UID: uid, Controller: new(true)}}
		return s
	}
	update := func(s *corev1.Secret) {
		n := s.DeepCopy()
		n.ResourceVersion = "2"
		h.OnUpdate(s, n)
	}
	h.OnAdd(child("uid-1", "PostgresCluster"), false) // created by the owner's own pass
	if len(got) != 0 {
		t.Fatalf("the creation of a child woke its owner: %v", got)
	}
	update(child("uid-1", "PostgresCluster"))
	update(child("uid-old", "PostgresCluster")) // left over from a deleted owner
	update(child("uid-1", "PostgresDatabase"))  // another kind
	update(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "orphan", Namespace: "ns"}})
	if len(got) != 1 || got[0] != (workqueue.Key{Namespace: "ns", Name: "shop"}) {
		t.Fatalf("enqueued %v, want only ns/shop once", got)
	}
}

func TestMappedHandlerRoutesClusterToItsDatabases(t *testing.T) {
	inf := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{ByClusterRef: indexByClusterRef})
	for _, db := range []struct{ name, cluster string }{{"a", "shop"}, {"b", "shop"}, {"c", "other"}} {
		_ = inf.Add(&pgv1.PostgresDatabase{
			ObjectMeta: metav1.ObjectMeta{Name: db.name, Namespace: "ns"},
			Spec:       pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: db.cluster}},
		})
	}
	var got keys
	h := MappedHandler(func(obj any) []workqueue.Key {
		c := obj.(*pgv1.PostgresCluster)
		var ks []workqueue.Key
		for _, db := range ListDatabasesOf(inf, c.Namespace, c.Name) {
			ks = append(ks, KeyOf(db))
		}
		return ks
	}, nil, got.add)
	h.OnUpdate(pgc("1", 1), pgc("2", 1)) // a status change of the cluster matters to its databases
	h.OnUpdate(pgc("2", 1), pgc("2", 1)) // resync: each database has its own
	if len(got) != 2 {
		t.Fatalf("enqueued %v, want a and b once", got)
	}
}

// The deletion of a child a previous owner of the same name left behind
// wakes the current owner: that child stood in its way.
func TestOwnerHandlerRoutesDeletionOfANamesakesChild(t *testing.T) {
	var got keys
	lookup := func(ns, name string) (types.UID, bool) { return "uid-new", ns == "ns" && name == "shop" }
	h := OwnerHandler("PostgresCluster", lookup, got.add)
	old := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shop-connection", Namespace: "ns", ResourceVersion: "1",
		OwnerReferences: []metav1.OwnerReference{{Kind: "PostgresCluster", Name: "shop", UID: "uid-old", Controller: new(true)}}}}
	h.OnAdd(old, false)
	if len(got) != 0 {
		t.Fatalf("a namesake's child woke the owner on add: %v", got)
	}
	h.OnDelete(old)
	if len(got) != 1 || got[0] != (workqueue.Key{Namespace: "ns", Name: "shop"}) {
		t.Fatalf("enqueued %v on deletion, want ns/shop", got)
	}
}
