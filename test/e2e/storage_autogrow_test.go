package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// growCooldown is the auto-grow window in this test: long enough that
// several samples fall inside it, short enough for three windows to pass.
const growCooldown = 20 * time.Second

// usedBytes measures what the collector measures: every database and
// pg_wal.
func usedBytes(t *testing.T, conn *pgx.Conn) int64 {
	t.Helper()
	var n int64
	err := conn.QueryRow(t.Context(), `SELECT (SELECT sum(pg_database_size(oid)) FROM pg_database)::bigint
		+ (SELECT coalesce(sum(size), 0) FROM pg_ls_waldir())::bigint`).Scan(&n)
	if err != nil {
		t.Fatalf("measure: %v", err)
	}
	return n
}

// fillTo inserts rows of incompressible text until the data Postgres
// holds reaches want bytes.
func fillTo(t *testing.T, conn *pgx.Conn, want int64) int64 {
	t.Helper()
	for {
		n := usedBytes(t, conn)
		if n >= want {
			return n
		}
		// ~1 KiB rows, under the TOAST threshold: stored as written.
		if _, err := conn.Exec(t.Context(), `INSERT INTO fill SELECT string_agg(md5(random()::text), '') FROM generate_series(1, 32), generate_series(1, 256) g GROUP BY g`); err != nil {
			t.Fatalf("fill: %v", err)
		}
	}
}

func growEvents(t *testing.T, ns, name string) []string {
	t.Helper()
	evs, err := kube.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.name=" + name + ",reason=StorageGrown"})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range evs.Items {
		for range max(e.Count, 1) {
			out = append(out, e.Message)
		}
	}
	return out
}

// waitStorage waits until status.storage.size is size.
func waitStorage(t *testing.T, ns, name, size string, timeout time.Duration) *pgv1.PostgresCluster {
	t.Helper()
	var c *pgv1.PostgresCluster
	kit.Until(t, timeout, "status.storage.size "+size, func(ctx context.Context) (bool, error) {
		var err error
		c, err = pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		st := c.Status.Storage
		return st != nil && st.Size != nil && st.Size.String() == size, nil
	})
	return c
}

// forgeStorage writes st as the cluster's status.storage, as anyone with
// access to the status subresource can, then changes an annotation so
// that a pass runs (a status change alone starts none).
func forgeStorage(t *testing.T, ns, name string, st *pgv1.StorageStatus) {
	t.Helper()
	clusters := pg.PostgresV1alpha1().PostgresClusters(ns)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c, err := clusters.Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		c.Status.Storage = st
		_, err = clusters.UpdateStatus(t.Context(), c, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("forge status.storage: %v", err)
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{"e2e.setpoint.dev/poke":%q}}}`, time.Now().Format(time.RFC3339Nano))
	if _, err := clusters.Patch(t.Context(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("poke: %v", err)
	}
}

func cnpgStorageSize(t *testing.T, ns, name string) string {
	t.Helper()
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return cl.Spec.Storage.Size
}

// TestStorageAutoGrow fills a tiny volume past the threshold on the real
// control plane and real Postgres: the operator grows the CNPG Cluster's
// storage.size once per cooldown window, by the increment, to the limit,
// and then reports StorageAtLimit with a Warning; the user's spec never
// changes.
func TestStorageAutoGrow(t *testing.T) {
	ns := kit.Namespace(t)
	args := []string{"--leader-elect=false", "--namespace", ns,
		"--postgres-host-map", hostMap, "--postgres-sample-interval", sampleInterval.String()}
	op := startOperator(t, "autogrow-op", args...)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{
		Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15),
		Storage: &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("96Mi")), AutoGrow: &pgv1.AutoGrowSpec{
			Enabled: ptr.To(true), Increment: ptr.To("20%"), Limit: ptr.To(resource.MustParse("144Mi")),
			Cooldown: &metav1.Duration{Duration: growCooldown},
		}},
		SuperuserAccess: ptr.To(true), // the test fills the volume as postgres
	})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	conn := connectSuperuser(t, ns, "shop")
	base := usedBytes(t, conn)
	t.Logf("an empty PG15 cluster holds %d bytes (%.1f MiB) of databases and WAL", base, float64(base)/(1<<20))
	if base*100 >= 75*96<<20 {
		t.Fatalf("the empty cluster is already over 75%% of 96Mi (%d bytes): the test needs a larger start", base)
	}
	c := waitStorage(t, ns, "shop", "96Mi", withinTwoSamples)
	if c.Status.Storage.LastGrowTime != nil || c.Status.Storage.GrowInFlight {
		t.Errorf("status.storage before any grow = %+v", c.Status.Storage)
	}
	if _, err := conn.Exec(t.Context(), "CREATE TABLE fill (v text)"); err != nil {
		t.Fatal(err)
	}

	var first time.Time
	parent := t
	t.Run("over the threshold: one grow by the increment", func(t *testing.T) {
		n := fillTo(t, conn, 96<<20*81/100)
		t.Logf("filled to %d bytes (%.1f MiB)", n, float64(n)/(1<<20))
		c := waitStorage(t, ns, "shop", "116Mi", withinTwoSamples) // 96Mi + 20 % = 115.2Mi, rounded up
		st := c.Status.Storage
		if st.LastGrowFrom == nil || st.LastGrowFrom.String() != "96Mi" || st.LastGrowTime == nil || !st.GrowInFlight {
			t.Errorf("status.storage = %+v", st)
		}
		first = st.LastGrowTime.Time
		if got := cnpgStorageSize(t, ns, "shop"); got != "116Mi" {
			t.Errorf("CNPG Cluster storage.size = %s, want 116Mi", got)
		}
		if got := c.Spec.Storage; got != nil {
			t.Errorf("the PostgresCluster's spec.storage was written: %+v", got)
		}
		expectEvent(t, ns, "shop", "Normal", "StorageGrown")
		if ev := growEvents(t, ns, "shop"); len(ev) != 1 {
			t.Errorf("StorageGrown Events = %q, want one", ev)
		}
		if cond := meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionStorageAtLimit); cond == nil || cond.Status != metav1.ConditionFalse {
			t.Errorf("StorageAtLimit = %+v, want False", cond)
		}
	})

	t.Run("still over inside the window, across an operator restart: no second grow until it ends", func(t *testing.T) {
		// A new process knows the window only from the mark setpoint
		// wrote on the CNPG Cluster.
		op.signal(syscall.SIGKILL)
		<-op.done
		op = startOperator(parent, "autogrow-op-2", args...) // lives past this subtest
		// A forged status is a report setpoint rewrites, never an input:
		// the limit as the size and a window that ends tomorrow buy
		// nothing and suppress nothing (the grow after the window, below).
		forgeStorage(t, ns, "shop", &pgv1.StorageStatus{Size: ptr.To(resource.MustParse("144Mi")), LastGrowFrom: ptr.To(resource.MustParse("116Mi")),
			LastGrowTime: &metav1.Time{Time: time.Now().Add(24 * time.Hour)}, GrowInFlight: true})
		c := waitStorage(t, ns, "shop", "116Mi", 30*time.Second)
		if st := c.Status.Storage; st.LastGrowTime == nil || !st.LastGrowTime.Time.Equal(first) || st.LastGrowFrom.String() != "96Mi" {
			t.Errorf("status.storage after the forged one = %+v, want the grow at %s from 96Mi", st, first)
		}
		if got := cnpgStorageSize(t, ns, "shop"); got != "116Mi" {
			t.Errorf("CNPG Cluster storage.size = %s after a forged status, want 116Mi", got)
		}
		n := fillTo(t, conn, 116<<20*85/100)
		t.Logf("filled to %d bytes (%.1f MiB), over 80%% of 116Mi", n, float64(n)/(1<<20))
		// Proof by the collector's count: samples over the threshold
		// were taken inside the window, and the size held.
		ok := op.metric(t, "setpoint_collector_samples_total", "result", "ok")
		kit.Until(t, 10*sampleInterval, "three samples over the threshold", func(context.Context) (bool, error) {
			return op.metric(t, "setpoint_collector_samples_total", "result", "ok") >= ok+3, nil
		})
		c, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		inWindow := time.Since(first) < growCooldown
		if st := c.Status.Storage; inWindow && (st.Size.String() != "116Mi" || !st.GrowInFlight) {
			t.Errorf("inside the window status.storage = %+v", st)
		}
		if !inWindow {
			t.Logf("the samples took longer than the window; the grow after it is checked below")
		}
		c = waitStorage(t, ns, "shop", "140Mi", growCooldown+withinTwoSamples) // 116Mi + 20 % = 139.2Mi
		st := c.Status.Storage
		if gap := st.LastGrowTime.Sub(first); gap < growCooldown-time.Second {
			// metav1.Time keeps seconds: allow the truncation.
			t.Errorf("second grow %s after the first, inside the %s window", gap, growCooldown)
		}
		if st.LastGrowFrom.String() != "116Mi" || cnpgStorageSize(t, ns, "shop") != "140Mi" {
			t.Errorf("second grow: status.storage = %+v, CNPG %s", st, cnpgStorageSize(t, ns, "shop"))
		}
		// The Event is sent after the status write, asynchronously: wait
		// for it to be recorded, then count.
		kit.Until(t, 30*time.Second, "the second StorageGrown Event", func(context.Context) (bool, error) {
			return len(growEvents(t, ns, "shop")) >= 2, nil
		})
		if ev := growEvents(t, ns, "shop"); len(ev) != 2 {
			t.Errorf("StorageGrown Events = %q, want two", ev)
		}
	})

	t.Run("grows stop at the limit with a Warning and StorageAtLimit", func(t *testing.T) {
		fillTo(t, conn, 140<<20*85/100)
		c := waitStorage(t, ns, "shop", "144Mi", growCooldown+withinTwoSamples) // capped: 140Mi + 20 % > 144Mi
		if c.Status.Storage.LastGrowFrom.String() != "140Mi" {
			t.Errorf("status.storage = %+v", c.Status.Storage)
		}
		n := fillTo(t, conn, 144<<20*85/100)
		t.Logf("filled to %d bytes (%.1f MiB), over 80%% of the 144Mi limit", n, float64(n)/(1<<20))
		c = waitCondition(t, ns, "shop", pgv1.ConditionStorageAtLimit, metav1.ConditionTrue, growCooldown+withinTwoSamples)
		if cond := meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionStorageAtLimit); cond.Reason != "AtLimit" {
			t.Errorf("StorageAtLimit reason = %s", cond.Reason)
		}
		expectEvent(t, ns, "shop", "Warning", "StorageAtLimit")
		// Past the window, over the threshold, at the limit: samples go
		// on and the size holds.
		wait := time.Until(c.Status.Storage.LastGrowTime.Add(growCooldown + time.Second))
		if wait > growCooldown+time.Second {
			t.Fatalf("status.storage.lastGrowTime %s is in the future", c.Status.Storage.LastGrowTime)
		}
		ok := op.metric(t, "setpoint_collector_samples_total", "result", "ok")
		kit.Until(t, wait+10*sampleInterval, "samples after the window", func(context.Context) (bool, error) {
			return time.Now().After(c.Status.Storage.LastGrowTime.Add(growCooldown+time.Second)) &&
				op.metric(t, "setpoint_collector_samples_total", "result", "ok") >= ok+3, nil
		})
		got, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if got.Status.Storage.Size.String() != "144Mi" || cnpgStorageSize(t, ns, "shop") != "144Mi" {
			t.Errorf("grew past the limit: status %s, CNPG %s", got.Status.Storage.Size.String(), cnpgStorageSize(t, ns, "shop"))
		}
		ev := growEvents(t, ns, "shop")
		if len(ev) != 3 {
			t.Errorf("StorageGrown Events = %q, want three (96→116, 116→140, 140→144)", ev)
		}
		for _, step := range []string{"from 96Mi to 116Mi: ", "from 116Mi to 140Mi: ", "from 140Mi to 144Mi: "} {
			if !slices.ContainsFunc(ev, func(m string) bool { return strings.Contains(m, step) && strings.Contains(m, " MiB of ") }) {
				t.Errorf("no StorageGrown Event %q…usage in %q", step, ev)
			}
		}
		if got.Spec.Storage != nil {
			t.Errorf("the PostgresCluster's spec.storage was written: %+v", got.Spec.Storage)
		}
	})

	t.Run("a larger spec wins over the grown size", func(t *testing.T) {
		c, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c.Spec.Storage = &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("300Mi")), AutoGrow: &pgv1.AutoGrowSpec{Limit: ptr.To(resource.MustParse("400Mi"))}}
		if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Update(t.Context(), c, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		waitStorage(t, ns, "shop", "300Mi", 30*time.Second)
		kit.Until(t, 30*time.Second, "CNPG storage.size 300Mi", func(ctx context.Context) (bool, error) {
			return cnpgStorageSize(t, ns, "shop") == "300Mi", nil
		})
		waitCondition(t, ns, "shop", pgv1.ConditionStorageAtLimit, metav1.ConditionFalse, 30*time.Second)
	})
}
