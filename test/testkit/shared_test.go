package testkit

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/pki"
)

// The condition's reason alone is not enough: the status must be written
// for the cluster's generation.
func TestWaitClusterReasonWantsItAtItsGeneration(t *testing.T) {
	k := newKit()
	c := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", Generation: 2},
		Status: pgv1.PostgresClusterStatus{ObservedGeneration: 1,
			Conditions: []metav1.Condition{{Type: "ObjectStoreReady", Reason: "BackupTargetUnavailable"}}}}
	if _, err := k.PG.PostgresV1alpha1().PostgresClusters("ns").Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tb := &fatalTB{TB: t}
	failed := tb.run(func() {
		k.WaitClusterReason(tb, "ns", "shop", "ObjectStoreReady", "BackupTargetUnavailable", 30*time.Millisecond)
	})
	if !strings.Contains(failed, "generation 1/2") {
		t.Errorf("a reason of an older generation: failed with %q", failed)
	}
	c.Status.ObservedGeneration = 2
	if _, err := k.PG.PostgresV1alpha1().PostgresClusters("ns").Update(t.Context(), c, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := k.WaitClusterReason(t, "ns", "shop", "ObjectStoreReady", "BackupTargetUnavailable", time.Second); got.Status.ObservedGeneration != 2 {
		t.Errorf("returned %+v", got.Status)
	}
}

// A segment is archived once the archiver's last archived one sorts at or
// after it; what it last failed is in the message.
func TestArchiverReportedComparesSegmentNames(t *testing.T) {
	archiver := func(last, failed string) Query {
		return func(context.Context, string) (string, error) { return last + " " + failed, nil }
	}
	for _, c := range []struct {
		last, wal string
		want      bool
	}{
		{"000000010000000000000003", "000000010000000000000003", true},
		{"000000010000000000000004", "000000010000000000000003", true},
		{"000000010000000000000002", "000000010000000000000003", false},
		{"", "000000010000000000000001", false},
	} {
		ok, seen, err := ArchiverReported(t.Context(), "ns", "shop", archiver(c.last, "000000010000000000000009"), c.wal)
		if err != nil || ok != c.want || !strings.Contains(seen, `last failed "000000010000000000000009"`) {
			t.Errorf("last %q, wal %q: %v %q %v, want %v", c.last, c.wal, ok, seen, err, c.want)
		}
	}
}

// A Secret applications are pointed to may hold its own certificate's key,
// and no other.
func TestHoldsNoOtherKey(t *testing.T) {
	ca, err := pki.NewAuthority("test", time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	crt, key, err := ca.IssueClient("app", time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	_, otherKey, err := ca.IssueClient("other", time.Now(), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		data map[string][]byte
		errs int
	}{
		{map[string][]byte{"tls.crt": crt, "tls.key": key}, 0},
		{map[string][]byte{"ca.crt": crt}, 0},
		{map[string][]byte{"tls.crt": crt, "tls.key": otherKey}, 1},
		{map[string][]byte{"ca.crt": crt, "ca.key": key}, 1},
	} {
		r := &errorsTB{TB: t}
		HoldsNoOtherKey(r, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Data: c.data})
		if len(r.errs) != c.errs {
			t.Errorf("keys %v: %d errors %q, want %d", keys(c.data), len(r.errs), r.errs, c.errs)
		}
	}
}

// errorsTB records Errorf instead of failing the test.
type errorsTB struct {
	testing.TB
	errs []string
}

func (e *errorsTB) Helper() {}
func (e *errorsTB) Errorf(format string, args ...any) {
	e.errs = append(e.errs, fmt.Sprintf(format, args...))
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
