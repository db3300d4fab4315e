package testkit

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// fatalTB records a Fatalf and ends its goroutine, as testing.T does.
type fatalTB struct {
	testing.TB
	mu     sync.Mutex
	failed string
}

func (f *fatalTB) Helper() {}
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	f.failed = fmt.Sprintf(format, args...)
	f.mu.Unlock()
	runtime.Goexit()
}

// run runs body as a test would, and returns what it failed with.
func (f *fatalTB) run(body func()) string {
	done := make(chan struct{})
	go func() { defer close(done); body() }()
	<-done
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.failed
}

func newKit() Kit {
	return Kit{Kube: kubefake.NewClientset(), PG: fake.NewSimpleClientset(), Poll: time.Millisecond, Scale: 0.01}
}

func TestEventuallyFailsWithWhatItLastSaw(t *testing.T) {
	tb := &fatalTB{TB: t}
	looks := 0
	failed := tb.run(func() {
		newKit().Eventually(tb, 50*time.Millisecond, "the thing", func(context.Context) (bool, string, error) {
			looks++
			if looks%2 == 0 {
				return false, "", errors.New("an error at an even look")
			}
			return false, "an odd look", nil
		})
	})
	if !strings.HasPrefix(failed, "the thing: not within 50ms; last seen: ") || looks < 2 {
		t.Errorf("failed with %q after %d looks", failed, looks)
	}
}

func TestEventuallyPollsUntilTheConditionHolds(t *testing.T) {
	tb := &fatalTB{TB: t}
	looks := 0
	failed := tb.run(func() {
		newKit().Until(tb, 5*time.Second, "the third look", func(context.Context) (bool, error) {
			looks++
			if looks < 3 {
				return false, apierrors.NewNotFound(schema.GroupResource{Resource: "things"}, "x")
			}
			return true, nil
		})
	})
	if failed != "" || looks != 3 {
		t.Errorf("failed %q after %d looks, want success at the third", failed, looks)
	}
}

func TestUntilEndsAtOnceOnAnError(t *testing.T) {
	tb := &fatalTB{TB: t}
	looks := 0
	failed := tb.run(func() {
		newKit().Until(tb, 5*time.Second, "no second Event", func(context.Context) (bool, error) {
			looks++
			return false, errors.New("2 Events, want 1")
		})
	})
	if failed != "no second Event: 2 Events, want 1" || looks != 1 {
		t.Errorf("failed %q after %d looks, want at once", failed, looks)
	}
}

func TestWaitDatabaseWantsThePhaseAtItsGeneration(t *testing.T) {
	k := newKit()
	db := &pgv1.PostgresDatabase{ObjectMeta: metav1.ObjectMeta{Name: "app", Namespace: "ns", Generation: 2},
		Status: pgv1.PostgresDatabaseStatus{Phase: pgv1.PhaseReady, ObservedGeneration: 1}}
	if _, err := k.PG.PostgresV1alpha1().PostgresDatabases("ns").Create(t.Context(), db, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tb := &fatalTB{TB: t}
	failed := tb.run(func() { k.WaitDatabase(tb, "ns", "app", pgv1.PhaseReady, 30*time.Millisecond) })
	if !strings.Contains(failed, "generation 1/2; phase Ready") {
		t.Errorf("a Ready phase of an older generation: failed with %q", failed)
	}
	db.Status.ObservedGeneration = 2
	if _, err := k.PG.PostgresV1alpha1().PostgresDatabases("ns").Update(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := k.WaitDatabase(t, "ns", "app", pgv1.PhaseReady, time.Second); got.Status.ObservedGeneration != 2 {
		t.Errorf("returned %+v", got.Status)
	}
}

func TestGoneWaitsForNotFound(t *testing.T) {
	k := newKit()
	tb := &fatalTB{TB: t}
	failed := tb.run(func() {
		k.Gone(tb, "the object", func(context.Context) error { return nil })
	})
	if !strings.Contains(failed, "the object deleted: not within") || !strings.Contains(failed, "still there") {
		t.Errorf("an object that stays: failed with %q", failed)
	}
	c := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}}
	if _, err := k.PG.PostgresV1alpha1().PostgresClusters("ns").Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	k.DeleteCluster(t, "ns", "shop") // the fake deletes at once: gone at the first look
}

func TestExpectReasonAndRotatedFor(t *testing.T) {
	conds := []metav1.Condition{{Type: "Ready", Reason: "Done", Message: "all good"}}
	ExpectReason(t, conds, "Ready", "Done", "good")
	db := &pgv1.PostgresDatabase{Status: pgv1.PostgresDatabaseStatus{Databases: []pgv1.DatabaseStatus{{
		Roles: []pgv1.RoleStatus{{LastRotation: &pgv1.PasswordRotation{Request: "r1"}}, {}},
	}}}}
	if rotated, roles := RotatedFor(db, "r1"); rotated != 1 || roles != 2 {
		t.Errorf("RotatedFor = %d of %d, want 1 of 2", rotated, roles)
	}
}

func TestPasswordRefusedIsInvalidPasswordOnly(t *testing.T) {
	if !PasswordRefused(fmt.Errorf("log in: %w", &pgconn.PgError{Code: "28P01"})) {
		t.Error("a wrapped 28P01 is a refused password")
	}
	for _, err := range []error{nil, errors.New("dial tcp: connection refused"), &pgconn.PgError{Code: "42501"}} {
		if PasswordRefused(err) {
			t.Errorf("%v counted as a refused password", err)
		}
	}
}

func TestOpenNeedsTheTiersSessions(t *testing.T) {
	if _, err := newKit().Open(t.Context(), "ns", "shop", "app", "u", "p"); err == nil {
		t.Error("a kit without Sessions opened a session")
	}
	want := errors.New("no such Service")
	k := newKit()
	k.Sessions = func(_ context.Context, ns, cluster, service, database string) (*pgx.ConnConfig, error) {
		if ns != "ns" || cluster != "shop" || service != "shop-rw" || database != "app" {
			t.Errorf("Sessions asked for %s/%s via %s, database %s", ns, cluster, service, database)
		}
		return nil, want
	}
	if _, err := k.Open(t.Context(), "ns", "shop", "app", "u", "p"); !errors.Is(err, want) {
		t.Errorf("Open = %v, want the tier's error", err)
	}
}
