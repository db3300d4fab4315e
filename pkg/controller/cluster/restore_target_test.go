package cluster

import (
	"errors"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func restoringCluster(created time.Time, target *time.Time) *pgv1.PostgresCluster {
	pc := cluster(pgv1.ClusterSettings{})
	pc.CreationTimestamp = metav1.NewTime(created)
	pc.Spec.Restore = &pgv1.RestoreSpec{Source: "shop"}
	if target != nil {
		pc.Spec.Restore.TargetTime = &metav1.Time{Time: *target}
	}
	return pc
}

// A targetTime after the cluster's creation is refused before the CNPG
// Cluster is written, with a reason and a message naming the time and
// "now"; the answer does not change once the clock passes the target, and
// a cluster whose CNPG Cluster exists is not judged.
func TestRestoreTargetInTheFutureIsRefused(t *testing.T) {
	t.Parallel()
	created := t0
	future := t0.Add(time.Hour)
	pc := restoringCluster(created, &future)
	_, err := resolveAgainst(pc, class(), nil, t0.Add(time.Minute))
	var se *specError
	if !errors.As(err, &se) || se.reason != "RestoreTargetInFuture" {
		t.Fatalf("err = %v, want RestoreTargetInFuture", err)
	}
	for _, part := range []string{"restore.targetTime 2026-11-30T13:00:00Z is in the future", "1h0m0s after now (2026-11-30T12:00:00Z", "delete this PostgresCluster and create it again"} {
		if !strings.Contains(se.message, part) {
			t.Errorf("message %q lacks %q", se.message, part)
		}
	}

	// The target has passed.
	_, later := resolveAgainst(pc, class(), nil, t0.Add(2*time.Hour))
	if !errors.As(later, &se) || se.reason != "RestoreTargetInFuture" || later.Error() != err.Error() {
		t.Fatalf("after the target passed: %v, want the same refusal %v", later, err)
	}

	if _, err := resolveAgainst(pc, class(), runningCluster(pc, "ghcr.io/cloudnative-pg/postgresql:16", "10Gi"), t0); err != nil {
		t.Errorf("a cluster whose CNPG Cluster exists was judged: %v", err)
	}
}

func TestRestoreTargetInThePastIsAccepted(t *testing.T) {
	t.Parallel()
	past := t0.Add(-time.Hour)
	for name, pc := range map[string]*pgv1.PostgresCluster{
		"before creation":   restoringCluster(t0, &past),
		"at creation":       restoringCluster(t0, &t0),
		"no target":         restoringCluster(t0, nil),
		"no restore at all": cluster(pgv1.ClusterSettings{}),
	} {
		if _, err := resolveAgainst(pc, class(), nil, t0); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}
