package testkit

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clienttesting "k8s.io/client-go/testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// An Event's count is how many times it happened (at least once), and a
// third Event where two were wanted fails at once, not at the deadline.
func TestWaitEventsCountsRepeatsAndFailsAtOnceOnMore(t *testing.T) {
	k := newKit()
	event := func(name string, count int32) {
		e := &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"},
			InvolvedObject: corev1.ObjectReference{Name: "shop"}, Reason: "BackupsFailing", Count: count}
		if _, err := k.Kube.CoreV1().Events("ns").Create(t.Context(), e, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	event("a", 0)
	event("b", 1)
	if n := k.CountEvents(t, "ns", "shop", "BackupsFailing"); n != 2 {
		t.Fatalf("CountEvents = %d, want 2", n)
	}
	k.WaitEvents(t, "ns", "shop", "BackupsFailing", 2, time.Second)

	event("c", 2)
	tb := &fatalTB{TB: t}
	start := time.Now()
	failed := tb.run(func() { k.WaitEvents(tb, "ns", "shop", "BackupsFailing", 3, 5*time.Second) })
	if !strings.Contains(failed, "4 BackupsFailing Events, want 3") || time.Since(start) > time.Second {
		t.Errorf("one Event too many: failed with %q after %s", failed, time.Since(start))
	}
}

// UpdateCluster reads the cluster again after a conflict and applies the
// change to what it read.
func TestUpdateClusterRetriesAConflict(t *testing.T) {
	k := newKit()
	c := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}, Spec: pgv1.PostgresClusterSpec{Class: "small"}}
	if _, err := k.PG.PostgresV1alpha1().PostgresClusters("ns").Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	conflicts := 1
	k.PG.(*fake.Clientset).PrependReactor("update", "postgresclusters", func(clienttesting.Action) (bool, runtime.Object, error) {
		if conflicts == 0 {
			return false, nil, nil
		}
		conflicts--
		return true, nil, apierrors.NewConflict(schema.GroupResource{Resource: "postgresclusters"}, "shop", errors.New("changed"))
	})
	mutations := 0
	k.UpdateCluster(t, "ns", "shop", func(c *pgv1.PostgresCluster) {
		mutations++
		c.Spec.PostgreSQLConfig = map[string]string{"work_mem": "8MB"}
	})
	got, err := k.PG.PostgresV1alpha1().PostgresClusters("ns").Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if mutations != 2 || got.Spec.PostgreSQLConfig["work_mem"] != "8MB" || got.Spec.Class != "small" {
		t.Errorf("after %d mutations: spec %+v", mutations, got.Spec)
	}
}

func TestCreateDatabaseOnItsCluster(t *testing.T) {
	k := newKit()
	k.CreateDatabase(t, "ns", "app", "shop", pgv1.DatabaseSpec{Name: "orders"}, pgv1.DatabaseSpec{Name: "catalog"})
	d, err := k.PG.PostgresV1alpha1().PostgresDatabases("ns").Get(t.Context(), "app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Spec.ClusterRef.Name != "shop" || len(d.Spec.Databases) != 2 || d.Spec.Databases[1].Name != "catalog" {
		t.Errorf("spec %+v", d.Spec)
	}
}

func TestPasswordIsTheSecretsPassword(t *testing.T) {
	k := newKit()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "app-orders-rw", Namespace: "ns"}, Data: map[string][]byte{"password": []byte("pw")}}
	if _, err := k.Kube.CoreV1().Secrets("ns").Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := k.Password(t, "ns", "app-orders-rw"); got != "pw" {
		t.Errorf("Password = %q", got)
	}
	tb := &fatalTB{TB: t}
	if failed := tb.run(func() { k.Password(tb, "ns", "missing") }); !strings.HasPrefix(failed, "Secret missing: ") {
		t.Errorf("a missing Secret: failed with %q", failed)
	}
}

// DeniedEntry wants Postgres's 42501, and takes no other failure (a
// refused password, a dial error) for it.
func TestDeniedEntryWantsNoConnectPrivilege(t *testing.T) {
	for _, c := range []struct {
		err    error
		denied bool
	}{
		{fmt.Errorf("connect: %w", &pgconn.PgError{Code: "42501"}), true},
		{&pgconn.PgError{Code: "28P01"}, false},
		{errors.New("dial tcp: connection refused"), false},
	} {
		k := newKit()
		k.Sessions = func(context.Context, string, string, string, string) (*pgx.ConnConfig, error) { return nil, c.err }
		rec := &errorTB{TB: t}
		k.DeniedEntry(rec, "ns", "shop", "orders", "teamb_rw", "pw")
		if rec.errored == c.denied {
			t.Errorf("%v: errored %v, want %v", c.err, rec.errored, !c.denied)
		}
	}
}

// errorTB records whether the test was marked failed by Errorf.
type errorTB struct {
	testing.TB
	errored bool
}

func (e *errorTB) Helper()               {}
func (e *errorTB) Errorf(string, ...any) { e.errored = true }
