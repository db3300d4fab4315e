package realcnpg

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/cnpgsim"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// A restore that cannot succeed, on real CNPG: the source has no backups,
// so the plugin's restore in CNPG's full-recovery Job fails until the Job
// has used up its backoff limit (Kubernetes' default 6, about ten
// minutes). The PostgresCluster ends Failed with RestoreFailed and CNPG's
// reason, has no status.restoredFrom, and stays quiet: poked, setpoint
// writes no status while real CNPG keeps requeueing the Cluster. Real
// CNPG's phase and phaseReason are the stand-in's (test/cnpgsim).
func TestFailedRestoreOnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	class := s3BackupClass(t, ns, "")
	phases := watchPhases(t, ns, "ghost")
	c := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "ghost", Namespace: ns},
		Spec: pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete,
			Restore: &pgv1.RestoreSpec{Source: "nobody"}},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var got *pgv1.PostgresCluster
	kit.Eventually(t, 16*time.Minute, "PostgresCluster ghost Failed with RestoreFailed", func(ctx context.Context) (bool, string, error) {
		var err error
		if got, err = pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "ghost", metav1.GetOptions{}); err != nil {
			return false, "", err
		}
		r := apimeta.FindStatusCondition(got.Status.Conditions, pgv1.ConditionReady)
		return r != nil && r.Reason == pgv1.ReasonRestoreFailed && r.ObservedGeneration == got.Generation,
			testkit.Conditions(got.Status.Phase, got.Status.Conditions), nil
	})
	t.Logf("Failed with RestoreFailed %s after create", time.Since(start).Round(time.Second))
	ready := apimeta.FindStatusCondition(got.Status.Conditions, pgv1.ConditionReady)
	if got.Status.Phase != pgv1.PhaseFailed || !strings.Contains(ready.Message, "Instance creation failed for the following jobs: ghost-1-full-recovery") {
		t.Errorf("phase %s, Ready %s: %q; want Failed with CNPG's failed recovery Job", got.Status.Phase, ready.Reason, ready.Message)
	}
	if got.Status.RestoredFrom != nil {
		t.Errorf("status.restoredFrom = %+v on a cluster that restored nothing", got.Status.RestoredFrom)
	}

	// Real CNPG against the stand-in, word for word.
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "ghost", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Status.Phase != cnpgsim.PhaseUnrecoverable || cl.Status.PhaseReason != cnpgsim.RecoveryFailedReason("ghost") {
		t.Errorf("real CNPG reports the failed recovery as phase %q, reason %q; the stand-in as %q, %q",
			cl.Status.Phase, cl.Status.PhaseReason, cnpgsim.PhaseUnrecoverable, cnpgsim.RecoveryFailedReason("ghost"))
	}
	// No instance ran, so no currentPrimary: that is how setpoint tells a
	// finished bootstrap. CNPG's Initialized condition cannot tell: it is
	// True already, by the failed Job's PVC (the stand-in reports both the
	// same way).
	if cl.Status.CurrentPrimary != "" || !apimeta.IsStatusConditionTrue(cl.Status.Conditions, "Initialized") {
		t.Errorf("real CNPG after the failed recovery: currentPrimary %q, conditions %+v; want none, and Initialized True",
			cl.Status.CurrentPrimary, cl.Status.Conditions)
	}
	seen, _ := phases.seen()
	t.Logf("real CNPG's phases from creation to the failed recovery: %q", seen)

	// Quiet: over a window in which setpoint is woken again and again (an
	// annotation poked) and real CNPG requeues the Cluster by itself,
	// setpoint writes no status.
	pc := watchStatusWrites(t, ns, "ghost", func(ctx context.Context, rv string) (watch.Interface, error) {
		return pg.PostgresV1alpha1().PostgresClusters(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=ghost", ResourceVersion: rv})
	}, func(o any) any { return o.(*pgv1.PostgresCluster).Status }, got)
	cnpg := watchStatusWrites(t, ns, "ghost", func(ctx context.Context, rv string) (watch.Interface, error) {
		return pg.CNPGV1().Clusters(ns).Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=ghost", ResourceVersion: rv})
	}, func(o any) any { return o.(metav1.Object).GetResourceVersion() }, cl)
	const pokes, window = 6, 60 * time.Second
	for i := range pokes {
		patch, _ := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]string{"realcnpg.setpoint.dev/poke": fmt.Sprint(i)}}})
		if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Patch(t.Context(), "ghost", types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
			t.Fatalf("poke: %v", err)
		}
		time.Sleep(window / pokes) // spreads the pokes over the window; the count is the check
	}
	if n, what := pc.count(); n != 0 {
		t.Errorf("%d PostgresCluster status writes in %s while Failed (%d pokes): %v", n, window, pokes, what)
	}
	n, _ := cnpg.count()
	t.Logf("real CNPG wrote its Cluster %d times in the same %s", n, window)
}

// statusWrites counts the watch events of one object whose status differs
// from the one before.
type statusWrites struct {
	mu   sync.Mutex
	n    int
	seen []string
}

func (s *statusWrites) count() (int, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n, append([]string(nil), s.seen...)
}

// watchStatusWrites watches the object from base on, until the test
// ends; status picks from each version what counts as a write (the
// status, or the resourceVersion to count every write).
func watchStatusWrites(t *testing.T, ns, name string, start func(ctx context.Context, rv string) (watch.Interface, error),
	status func(any) any, base metav1.Object) *statusWrites {
	t.Helper()
	w, err := start(t.Context(), base.GetResourceVersion())
	if err != nil {
		t.Fatalf("watch %s/%s: %v", ns, name, err)
	}
	s := &statusWrites{}
	last := status(base)
	go func() {
		for ev := range w.ResultChan() {
			if ev.Type != watch.Modified {
				continue
			}
			st := status(ev.Object)
			s.mu.Lock()
			if !reflect.DeepEqual(st, last) {
				s.n++
				s.seen = append(s.seen, fmt.Sprintf("%+v", st))
			}
			last = st
			s.mu.Unlock()
		}
	}()
	t.Cleanup(w.Stop)
	return s
}
