package cachelag

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// A skipped pass is woken by the first update the informer delivers at a
// version our updates did not replace, and only then; objects whose pass
// was never skipped are left to the other handlers.
func TestSkippedPassWokenWhenCacheCatchesUp(t *testing.T) {
	t.Parallel()
	var e Expectations
	var woken []workqueue.Key
	h := e.Handler(func(k workqueue.Key) { woken = append(woken, k) })
	at := func(name, rv string) *pgv1.PostgresCluster {
		return &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
	}
	e.Updated(shop, "5", "6")
	h.OnUpdate(at("shop", "4"), at("shop", "5"))
	h.OnUpdate(at("shop", "5"), at("shop", "6"))
	if len(woken) != 0 {
		t.Fatalf("woken %v before any pass was skipped", woken)
	}

	e.Updated(shop, "6", "7")
	if e.CaughtUp(shop, At("6"), t0) {
		t.Fatal("cache at a replaced version caught up")
	}
	h.OnUpdate(at("shop", "5"), at("shop", "6")) // a late event at a replaced version
	h.OnUpdate(at("other", "1"), at("other", "2"))
	if len(woken) != 0 {
		t.Fatalf("woken %v before the cache caught up", woken)
	}
	h.OnUpdate(at("shop", "6"), at("shop", "7"))
	if want := (workqueue.Key{Namespace: "ns", Name: "shop"}); len(woken) != 1 || woken[0] != want {
		t.Fatalf("woken %v, want %v once", woken, want)
	}
	if !e.CaughtUp(shop, At("7"), t0) {
		t.Error("the woken pass is skipped again")
	}
	h.OnUpdate(at("shop", "7"), at("shop", "8"))
	if len(woken) != 1 {
		t.Errorf("woken %v after the skipped pass ran", woken)
	}
}

// A creation awaited wakes nothing: the kind's own handlers route the
// object's arrival to its owner, and a key of the created kind is not a
// key of the queue.
func TestCreationWakesNothing(t *testing.T) {
	t.Parallel()
	var e Expectations
	var woken []workqueue.Key
	h := e.Handler(func(k workqueue.Key) { woken = append(woken, k) })
	e.Created(shop, t0)
	e.CaughtUp(shop, Absent, t0)
	h.OnUpdate(nil, &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop", ResourceVersion: "1"}})
	if len(woken) != 0 {
		t.Errorf("woken %v for a creation", woken)
	}
}
