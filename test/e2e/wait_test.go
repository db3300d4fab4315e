package e2e_test

import (
	"context"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// eventually polls cond until it holds or timeout passes.
func eventually(t *testing.T, timeout time.Duration, what string, cond func(ctx context.Context) (bool, error)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		ok, err := cond(ctx)
		if apierrors.IsNotFound(err) {
			return false, nil
		}
		return ok, err
	})
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// waitCluster waits until the PostgresCluster has phase at its current
// generation and returns it.
func waitCluster(t *testing.T, ns, name string, phase pgv1.Phase, timeout time.Duration) *pgv1.PostgresCluster {
	t.Helper()
	var got *pgv1.PostgresCluster
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		var err error
		got, err = pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && got.Status.Phase == phase && got.Status.ObservedGeneration == got.Generation, nil
	})
	if err != nil {
		t.Fatalf("PostgresCluster %s not %s in %v: phase %s, generation %d/%d, conditions %+v",
			name, phase, timeout, got.Status.Phase, got.Status.ObservedGeneration, got.Generation, got.Status.Conditions)
	}
	return got
}

// gone waits until get reports not found.
func gone(t *testing.T, what string, get func(ctx context.Context) error) {
	t.Helper()
	eventually(t, 60*time.Second, what+" to be deleted", func(ctx context.Context) (bool, error) {
		err := get(ctx)
		if apierrors.IsNotFound(err) {
			return true, nil
		}
		return false, err
	})
}
