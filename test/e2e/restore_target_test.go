package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A restore.targetTime in the future (CEL has no clock) is refused by the
// operator before the CNPG Cluster is written: Failed RestoreTargetInFuture,
// and no CNPG Cluster. It stays refused once the target has passed: a
// pass of a later generation, after the target, still writes nothing.
func TestRestoreTargetInTheFutureIsRefused(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := backupClass(t, ns, "")
	target := time.Now().Add(3 * time.Second).Truncate(time.Second).Add(time.Second)
	c := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "later", Namespace: ns},
		Spec: pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete,
			Restore: &pgv1.RestoreSpec{Source: "shop", TargetTime: &metav1.Time{Time: target}}},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := kit.WaitCluster(t, ns, "later", pgv1.PhaseFailed, 60*time.Second)
	futureRefused(t, got, target)

	// The target passes; a new generation makes the operator judge again.
	kit.Until(t, 10*time.Second, "the target time passing", func(context.Context) (bool, error) {
		return time.Now().After(target.Add(time.Second)), nil
	})
	clusters := pg.PostgresV1alpha1().PostgresClusters(ns)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		cur, err := clusters.Get(t.Context(), "later", metav1.GetOptions{})
		if err != nil {
			return err
		}
		cur.Spec.Instances = ptr.To[int32](2)
		_, err = clusters.Update(t.Context(), cur, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got = kit.WaitCluster(t, ns, "later", pgv1.PhaseFailed, 60*time.Second) // at the new generation
	if got.Generation < 2 {
		t.Fatalf("generation %d: the edit did not reach the object", got.Generation)
	}
	futureRefused(t, got, target)
}

// futureRefused checks the refusal, and that nothing was created for it.
func futureRefused(t *testing.T, got *pgv1.PostgresCluster, target time.Time) {
	t.Helper()
	cond := meta.FindStatusCondition(got.Status.Conditions, pgv1.ConditionReady)
	if cond == nil || cond.Reason != "RestoreTargetInFuture" {
		t.Fatalf("Ready = %+v, want reason RestoreTargetInFuture", cond)
	}
	for _, part := range []string{"restore.targetTime " + target.UTC().Format(time.RFC3339) + " is in the future", "after now (", "delete this PostgresCluster and create it again"} {
		if !strings.Contains(cond.Message, part) {
			t.Errorf("message %q lacks %q", cond.Message, part)
		}
	}
	if _, err := pg.CNPGV1().Clusters(got.Namespace).Get(t.Context(), got.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("CNPG Cluster %s: %v, want NotFound", got.Name, err)
	}
	if got.Status.RestoredFrom != nil {
		t.Errorf("status.restoredFrom = %+v on a cluster that restored nothing", got.Status.RestoredFrom)
	}
}
