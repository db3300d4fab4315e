package e2e_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// warnings records the warnings the API server returns (CNPG's webhooks
// send theirs through it) to a client built with warningClient.
type warnings struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warnings) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, text)
}

func (w *warnings) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.msgs
	w.msgs = nil
	return out
}

func warningClient(t *testing.T) (versioned.Interface, *warnings) {
	t.Helper()
	w := &warnings{}
	cfg := rest.CopyConfig(env.Config)
	cfg.WarningHandlerWithContext = w
	return versioned.NewForConfigOrDie(cfg), w
}

func enablesPodMonitor(cl *cnpgv1.Cluster) bool {
	return cl.Spec.Monitoring != nil && cl.Spec.Monitoring.EnablePodMonitor != nil && *cl.Spec.Monitoring.EnablePodMonitor
}

// Monitoring makes setpoint keep the PodMonitor CloudNativePG recommends
// (selecting the cluster's instance pods, scraping port metrics), owned by
// the PostgresCluster; setpoint no longer sets CNPG's deprecated
// spec.monitoring.enablePodMonitor, so CNPG's real webhooks return no
// warning for the Cluster setpoint writes (the control shows they would
// for the deprecated field), and an enablePodMonitor an earlier setpoint
// applied is removed. A Retain deletion keeps the PodMonitor for the next
// cluster of the name; monitoring off removes it.
func TestMonitoringPodMonitor(t *testing.T) {
	ns := kit.Namespace(t)
	op := startOperator(t, "monitoring-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15),
		Monitoring: &pgv1.MonitoringSpec{Enabled: ptr.To(true)}})
	pc := newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	c := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	testkit.ExpectReason(t, c.Status.Conditions, pgv1.ConditionPodMonitorReady, "PodMonitorApplied", `"shop-metrics"`)

	pm, err := pg.MonitoringV1().PodMonitors(ns).Get(t.Context(), "shop-metrics", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("PodMonitor: %v", err)
	}
	sel := pm.Spec.Selector
	if len(sel.MatchLabels) != 2 || sel.MatchLabels["cnpg.io/cluster"] != "shop" || sel.MatchLabels["cnpg.io/podRole"] != "instance" || len(sel.MatchExpressions) != 0 {
		t.Errorf("selector = %+v, want cnpg.io/cluster=shop, cnpg.io/podRole=instance", sel)
	}
	if eps := pm.Spec.PodMetricsEndpoints; len(eps) != 1 || eps[0].Port == nil || *eps[0].Port != "metrics" {
		t.Errorf("podMetricsEndpoints = %+v, want one on port metrics", eps)
	}
	if !ownership.IsControlledBy(pm, pc.UID) {
		t.Errorf("PodMonitor not controlled by the PostgresCluster: %+v", pm.OwnerReferences)
	}

	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if enablesPodMonitor(cl) {
		t.Error("CNPG Cluster has spec.monitoring.enablePodMonitor true; setpoint no longer sets it")
	}

	t.Run("CNPG's webhooks warn about nothing setpoint writes", func(t *testing.T) {
		client, warned := warningClient(t)
		ours, err := cnpgac.ExtractCluster(cl, ownership.FieldManager)
		if err != nil {
			t.Fatal(err)
		}
		// The operator's own fields, written again as the operator writes
		// them: CNPG's validating webhook judges every update.
		if _, err := client.CNPGV1().Clusters(ns).Apply(t.Context(), ours,
			metav1.ApplyOptions{FieldManager: ownership.FieldManager, Force: true}); err != nil {
			t.Fatal(err)
		}
		if w := warned.take(); len(w) != 0 {
			t.Errorf("writing the Cluster as setpoint does returned warnings: %q", w)
		}
		// Control: the deprecated field draws CNPG's warning through the
		// same client (a dry run: nothing changes).
		old, _ := cnpgac.ExtractCluster(cl, ownership.FieldManager)
		old.Spec.WithMonitoring(cnpgac.MonitoringConfiguration().WithEnablePodMonitor(true))
		if _, err := client.CNPGV1().Clusters(ns).Apply(t.Context(), old,
			metav1.ApplyOptions{FieldManager: "e2e-control", Force: true, DryRun: []string{metav1.DryRunAll}}); err != nil {
			t.Fatal(err)
		}
		if w := warned.take(); !strings.Contains(strings.Join(w, "\n"), "enablePodMonitor") {
			t.Errorf("control: enablePodMonitor drew no deprecation warning (warnings %q): the check above proves nothing", w)
		}
		if strings.Contains(op.logs(), "enablePodMonitor") {
			t.Errorf("the operator logged a warning about enablePodMonitor:\n%s", op.logs())
		}
	})

	t.Run("enablePodMonitor left by an earlier setpoint is removed", func(t *testing.T) {
		old, err := cnpgac.ExtractCluster(cl, ownership.FieldManager)
		if err != nil {
			t.Fatal(err)
		}
		old.Spec.WithMonitoring(cnpgac.MonitoringConfiguration().WithEnablePodMonitor(true))
		if _, err := pg.CNPGV1().Clusters(ns).Apply(t.Context(), old,
			metav1.ApplyOptions{FieldManager: ownership.FieldManager, Force: true}); err != nil {
			t.Fatal(err)
		}
		kit.Until(t, 60*time.Second, "enablePodMonitor removed", func(ctx context.Context) (bool, error) {
			cl, err := pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
			return err == nil && !enablesPodMonitor(cl), err
		})
		kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 60*time.Second)
	})

	t.Run("Retain keeps the PodMonitor for the next cluster of the name", func(t *testing.T) {
		newCluster(t, ns, "kept", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyRetain)
		kit.WaitCluster(t, ns, "kept", pgv1.PhaseReady, 120*time.Second)
		kit.DeleteCluster(t, ns, "kept")
		kit.SettleGC(t, ns) // what the garbage collector would remove is gone by now
		pm, err := pg.MonitoringV1().PodMonitors(ns).Get(t.Context(), "kept-metrics", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("Retain deleted the PodMonitor: %v", err)
		}
		if len(pm.OwnerReferences) != 0 || pm.Labels[ownership.RetainedLabel] != "true" {
			t.Errorf("kept PodMonitor: owners %v, labels %v; want released and marked retained", pm.OwnerReferences, pm.Labels)
		}
		again := newCluster(t, ns, "kept", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
		kit.WaitCluster(t, ns, "kept", pgv1.PhaseReady, 120*time.Second)
		pm, err = pg.MonitoringV1().PodMonitors(ns).Get(t.Context(), "kept-metrics", metav1.GetOptions{})
		if err != nil || !ownership.IsControlledBy(pm, again.UID) {
			t.Fatalf("the new cluster did not adopt the PodMonitor: %v %+v", err, pm)
		}
	})

	t.Run("monitoring off removes the PodMonitor", func(t *testing.T) {
		kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) {
			c.Spec.Monitoring = &pgv1.MonitoringSpec{Enabled: ptr.To(false)}
		})
		kit.Gone(t, "PodMonitor", func(ctx context.Context) error {
			_, err := pg.MonitoringV1().PodMonitors(ns).Get(ctx, "shop-metrics", metav1.GetOptions{})
			return err
		})
		c := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 60*time.Second)
		testkit.ExpectReason(t, c.Status.Conditions, pgv1.ConditionPodMonitorReady, "NotConfigured", "monitoring disabled")
	})
}
