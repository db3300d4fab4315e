package parity

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// Normalize keeps what CNPG decided and marks what differs by site or
// moment: conditions by type without times, generations against the
// object's, volatile fields by presence.
func TestNormalize(t *testing.T) {
	now := metav1.Now()
	st := cnpgv1.ClusterStatus{
		Phase: "Cluster in healthy state", Instances: 1, CurrentPrimary: "shop-1",
		Conditions: []metav1.Condition{
			{Type: "Ready", Status: metav1.ConditionTrue, Reason: "ClusterIsReady", Message: "Cluster is Ready", LastTransitionTime: now, ObservedGeneration: 3},
			{Type: "Initialized", Status: metav1.ConditionTrue, Reason: "InitializationSucceeded", LastTransitionTime: now, ObservedGeneration: 2},
		},
	}
	got, err := Normalize(st, 3)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"conditions":{"Initialized":{"lastTransitionTime":"<set>","message":"","observedGeneration":"<not generation>","reason":"InitializationSucceeded","status":"True"},` +
		`"Ready":{"lastTransitionTime":"<set>","message":"Cluster is Ready","observedGeneration":"<generation>","reason":"ClusterIsReady","status":"True"}},` +
		`"currentPrimary":"shop-1","instances":1,"phase":"Cluster in healthy state"}`
	if Canonical(got) != want {
		t.Fatalf("Normalize:\n got %s\nwant %s", Canonical(got), want)
	}

	b, err := Normalize(cnpgv1.BackupStatus{Phase: "completed", BeginWal: "000000010000000000000002", StartedAt: &now}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if want := `{"beginWal":"<set>","phase":"completed","startedAt":"<set>"}`; Canonical(b) != want {
		t.Fatalf("Normalize(backup) = %s, want %s", Canonical(b), want)
	}
}

// Without removes one path and returns what was there, leaving its input
// as it was.
func TestWithout(t *testing.T) {
	v := map[string]any{"conditions": map[string]any{"Ready": "True", "ContinuousArchiving": "True"}, "phase": "x"}
	rest, removed := Without(v, "conditions.ContinuousArchiving")
	if Canonical(rest) != `{"conditions":{"Ready":"True"},"phase":"x"}` || removed != "True" {
		t.Fatalf("Without = %s, %v", Canonical(rest), removed)
	}
	if Canonical(v) != `{"conditions":{"ContinuousArchiving":"True","Ready":"True"},"phase":"x"}` {
		t.Fatalf("Without changed its input: %s", Canonical(v))
	}
	if _, removed := Without(v, "absent.path"); removed != nil {
		t.Fatalf("Without(absent) removed %v", removed)
	}
}
