package cachelag

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Fakes and clients that keep no resourceVersion never skip a pass.
func TestCacheLagNeedsVersions(t *testing.T) {
	var l CacheLag
	key := types.NamespacedName{Namespace: "ns", Name: "shop"}
	l.Wrote(key, "", "")
	l.Wrote(key, "5", "5")
	if l.Behind(key, "") || l.Behind(key, "5") {
		t.Error("a write that changed no version marks the cache behind")
	}
	l.Wrote(key, "5", "6")
	l.Wrote(key, "6", "7")
	if !l.Behind(key, "5") || !l.Behind(key, "6") || l.Behind(key, "7") {
		t.Error("versions replaced by our writes not recognised")
	}
	if l.Behind(key, "5") {
		t.Error("record kept after the cache showed a newer version")
	}
}

// A skipped pass is woken by the first update the informer delivers at a
// version our writes did not replace, and only then; objects whose pass
// was never skipped are left to the other handlers.
func TestCacheLagWakesSkippedPassWhenCacheCatchesUp(t *testing.T) {
	var l CacheLag
	var woken []workqueue.Key
	h := l.Handler(func(k workqueue.Key) { woken = append(woken, k) })
	at := func(name, rv string) *pgv1.PostgresCluster {
		return &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, ResourceVersion: rv}}
	}
	key := types.NamespacedName{Namespace: "ns", Name: "shop"}
	l.Wrote(key, "5", "6")
	h.OnUpdate(at("shop", "4"), at("shop", "5"))
	h.OnUpdate(at("shop", "5"), at("shop", "6"))
	if len(woken) != 0 {
		t.Fatalf("woken %v before any pass was skipped", woken)
	}

	l.Wrote(key, "6", "7")
	if !l.Behind(key, "6") {
		t.Fatal("cache at a replaced version not behind")
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
	if l.Behind(key, "7") {
		t.Error("the woken pass is skipped again")
	}
	h.OnUpdate(at("shop", "7"), at("shop", "8"))
	if len(woken) != 1 {
		t.Errorf("woken %v after the skipped pass ran", woken)
	}
}
