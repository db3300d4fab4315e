package realcnpg

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// TestSynchronousDurabilityOnRealCNPG: a class asks durability
// Synchronous (one standby, Required) of a two-instance cluster. Real
// CloudNativePG gets its synchronous stanza, and setpoint's status names
// the standby that confirms commits. With the standby fenced (CNPG stops
// its Postgres), a commit waits in Postgres (wait event SyncRep) and
// SynchronousStandbysMissing says why. The cluster switched to Preferred,
// the waiting commit returns and new ones go through. Unfenced, the
// standby confirms commits again.
func TestSynchronousDurabilityOnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	smallClass(t, "sync-"+ns, func(s *pgv1.ClusterSettings) {
		s.Instances = ptr.To[int32](2)
		s.Durability = &pgv1.DurabilitySpec{Mode: pgv1.DurabilitySynchronous}
	})
	createCluster(t, ns, "shop", "sync-"+ns)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 8*time.Minute)
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 4*time.Minute)

	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if s := cl.Spec.PostgresConfiguration.Synchronous; s == nil || s.Method != "any" || s.Number != 1 || s.DataDurability != "required" {
		t.Fatalf("CNPG Cluster postgresql.synchronous %+v, want any 1, required", s)
	}
	primary := cnpgPrimary(t, ns, "shop")
	standby := otherInstance(t, ns, "shop", primary)
	synchronousNow(t, ns, 1, []string{standby})

	admin := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-admin")
	if _, err := admin.Exec(t.Context(), "CREATE TABLE ledger (id int PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	rw := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-rw")
	if _, err := rw.Exec(t.Context(), "INSERT INTO ledger VALUES (1)"); err != nil {
		t.Fatalf("a commit with the standby streaming: %v", err)
	}

	// The standby stops: commits wait, and setpoint says so.
	fenced := time.Now()
	fence(t, ns, standby, true)
	pc := kit.WaitClusterReason(t, ns, "shop", pgv1.ConditionSynchronousStandbysMissing, pgv1.ReasonCommitsWait, 4*time.Minute)
	t.Logf("SynchronousStandbysMissing %s after the fence: %s", time.Since(fenced).Round(time.Second),
		meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionSynchronousStandbysMissing).Message)
	waiter := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-rw")
	var pid int
	if err := waiter.QueryRow(t.Context(), "SELECT pg_backend_pid()").Scan(&pid); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.WithoutCancel(t.Context()), 10*time.Minute)
		defer cancel()
		_, err := waiter.Exec(ctx, "INSERT INTO ledger VALUES (2)")
		done <- err
	}()
	kit.Eventually(t, time.Minute, "the commit waits for a synchronous standby", func(ctx context.Context) (bool, string, error) {
		var event *string
		if err := rw.QueryRow(ctx, "SELECT wait_event FROM pg_stat_activity WHERE pid = $1", pid).Scan(&event); err != nil {
			return false, "", err
		}
		select {
		case err := <-done:
			return false, "", fmt.Errorf("the commit returned while the standby was fenced (%v): Required durability did not hold", err)
		default:
		}
		return event != nil && *event == "SyncRep", fmt.Sprintf("wait_event %v", ptr.Deref(event, "none")), nil
	})

	// Preferred: CloudNativePG asks only the ready standbys, none here, so
	// the waiting commit returns.
	preferred := time.Now()
	kit.UpdateCluster(t, ns, "shop", func(pc *pgv1.PostgresCluster) { // its own durability replaces its class's whole
		pc.Spec.Durability = &pgv1.DurabilitySpec{Mode: pgv1.DurabilitySynchronous, DataDurability: pgv1.DataDurabilityPreferred}
	})
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("the waiting commit after Preferred: %v", err)
		}
		t.Logf("the waiting commit returned %s after the cluster asked Preferred", time.Since(preferred).Round(100*time.Millisecond))
	case <-time.After(time.Duration(float64(3*time.Minute) * kit.Scale)):
		t.Fatal("the waiting commit did not return within 3 min (scaled) of durability Preferred")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	if _, err := rw.Exec(ctx, "INSERT INTO ledger VALUES (3)"); err != nil {
		t.Fatalf("a commit under Preferred with the standby fenced: %v", err)
	}
	var n int
	if err := rw.QueryRow(t.Context(), "SELECT count(*) FROM ledger").Scan(&n); err != nil || n != 3 {
		t.Errorf("ledger has %d rows (%v), want 3", n, err)
	}
	kit.WaitClusterReason(t, ns, "shop", pgv1.ConditionSynchronousStandbysMissing, pgv1.ReasonSynchronousStandbysStreaming, 4*time.Minute)

	// The standby back: it confirms commits again.
	fence(t, ns, standby, false)
	synchronousNow(t, ns, 1, []string{standby})
}

// synchronousNow waits until status.postgres says what the primary asks
// and which standbys confirm commits.
func synchronousNow(t *testing.T, ns string, required int32, standbys []string) {
	t.Helper()
	kit.Eventually(t, 4*time.Minute, fmt.Sprintf("status names %v synchronous", standbys), func(ctx context.Context) (bool, string, error) {
		pc, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		h := pc.Status.Postgres
		if h == nil {
			return false, "no sample in status", nil
		}
		return h.SynchronousRequired == required && slices.Equal(h.SynchronousStandbys, standbys),
			fmt.Sprintf("required %d, synchronous %v", h.SynchronousRequired, h.SynchronousStandbys), nil
	})
}

// fence stops (or starts again) one instance's Postgres through CNPG's
// fencing annotation, a field setpoint does not own on the CNPG Cluster.
func fence(t *testing.T, ns, instance string, on bool) {
	t.Helper()
	value := "null"
	if on {
		value = fmt.Sprintf(`"[\"%s\"]"`, instance)
	}
	patch := fmt.Sprintf(`{"metadata":{"annotations":{"cnpg.io/fencedInstances":%s}}}`, value)
	if _, err := pg.CNPGV1().Clusters(ns).Patch(t.Context(), "shop", types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("fence %s %v: %v", instance, on, err)
	}
}
