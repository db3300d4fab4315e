package database

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cachelag"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// A pass that reads the object as it was before our own status write
// writes nothing (its write could only conflict) and comes back soon; once
// the cache shows the write, passes run as usual. (The fixture's API
// server gives every write a new resourceVersion, as a real one does.)
func TestPassSkippedWhileCacheBehindOwnWrite(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	db.Finalizers = []string{Finalizer}
	db.ResourceVersion = "7"
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	if _, err := f.syncReported("shop"); err != nil {
		t.Fatal(err)
	}
	if !statusWritten(f) || f.db("shop").ResourceVersion == "7" {
		t.Fatalf("first pass: writes %v, version %s", f.allWrites(), f.db("shop").ResourceVersion)
	}

	// The cache still holds version 7, the one the status write replaced.
	f.pg.ClearActions()
	f.kube.ClearActions()
	res, err := f.c.sync(t.Context(), workqueue.Key{Namespace: ns, Name: "shop"})
	if err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); len(w) != 0 || res.RequeueAfter != cachelag.CacheLagRecheck {
		t.Errorf("stale pass: writes %v requeue %v, want none and %v", w, res.RequeueAfter, cachelag.CacheLagRecheck)
	}

	// Caught up: an ordinary pass, nothing to write.
	if res := mustSync(t, f, "shop"); res == cachelag.CacheLagRecheck || statusWritten(f) {
		t.Errorf("pass on the current object: requeue %v writes %v", res, f.allWrites())
	}
	if !f.c.expect.CaughtUp(types.NamespacedName{Namespace: ns, Name: "shop"}, cachelag.At("7"), f.c.clock.Now()) {
		t.Error("replaced versions kept after the cache caught up")
	}
}
