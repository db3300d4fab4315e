package cluster

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cachelag"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// A pass skipped because the cache lagged its own status write resumes,
// once the informer shows the write, ahead of the first passes queued
// meanwhile: it had its turn.
func TestSkippedPassResumesAheadOfFirstPasses(t *testing.T) {
	t.Parallel()
	c := &Controller{queue: workqueue.New(workqueue.Options{Name: "test-skipped-pass"})}
	shop := types.NamespacedName{Namespace: "ns", Name: "shop"}
	c.expect.Updated(shop, "1", "2") // its status write replaced version 1
	if c.expect.CaughtUp(shop, cachelag.At("1"), t0) {
		t.Fatal("a cache at the replaced version counted as caught up")
	}
	c.queue.Add(workqueue.Key{Namespace: "ns", Name: "first"}) // another cluster's first pass
	at := func(rv string) *pgv1.PostgresCluster {
		return &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop", ResourceVersion: rv}}
	}
	c.skippedPassWake().OnUpdate(at("1"), at("2")) // the echo of the write

	ctx, cancel := context.WithCancel(t.Context())
	var order []string
	c.queue.Run(ctx, 1, func(_ context.Context, k workqueue.Key) (workqueue.Result, error) {
		if order = append(order, k.Name); len(order) == 2 {
			cancel()
		}
		return workqueue.Result{}, nil
	})
	if len(order) != 2 || order[0] != "shop" {
		t.Fatalf("passes in order %v, want shop first (it had its turn), then first", order)
	}
}
