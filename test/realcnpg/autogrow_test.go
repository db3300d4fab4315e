package realcnpg

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/cnpgsim"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// Auto-grow on real CloudNativePG. A threshold of 1 % of the 1 Gi volume
// is crossed by a new cluster's own data (≈60 MiB), so the collector's
// first sample grows it, by 1 Gi to the 2 Gi limit. setpoint asks for the
// size on the CNPG Cluster, with its mark, reports it in status with a
// StorageGrown Event, and, still over the threshold at the limit, says
// StorageAtLimit. The node has no CSI driver: no PVC can expand, so what
// is asserted of CNPG is its answer. Observed on CNPG 1.30: the node's
// static PVs are 2 Gi, so the claims' capacity already covers the new size
// and CNPG resizes nothing — it stays healthy with no PVC resizing, and
// the PostgresCluster is Ready again.
func TestAutoGrowOnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	limit := resource.MustParse("2Gi")
	smallClass(t, "grow-"+ns, func(s *pgv1.ClusterSettings) {
		s.Storage.AutoGrow = &pgv1.AutoGrowSpec{Enabled: ptr.To(true), Threshold: ptr.To[int32](1), Increment: ptr.To("1Gi"),
			Limit: &limit, Cooldown: &metav1.Duration{Duration: time.Hour}}
	})
	createCluster(t, ns, "shop", "grow-"+ns)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)

	kit.Eventually(t, 3*time.Minute, "the CNPG Cluster asked for 2Gi, with setpoint's mark", func(ctx context.Context) (bool, string, error) {
		cl, err := pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		mark := cl.Annotations["postgres.setpoint.dev/storage-grown"]
		ok := cl.Spec.Storage != nil && cl.Spec.Storage.Size == "2Gi" && strings.Contains(mark, `"size":"2Gi"`) && strings.Contains(mark, `"from":"1Gi"`)
		return ok, fmt.Sprintf("storage %+v, mark %q", cl.Spec.Storage, mark), nil
	})
	var pc *pgv1.PostgresCluster
	kit.Eventually(t, 3*time.Minute, "Ready again, grown, at the limit", func(ctx context.Context) (bool, string, error) {
		var err error
		if pc, err = pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{}); err != nil {
			return false, "", err
		}
		st := pc.Status.Storage
		grown := st != nil && st.Size != nil && st.Size.Equal(limit) && st.LastGrowFrom != nil && st.LastGrowFrom.String() == "1Gi"
		atLimit := meta.IsStatusConditionTrue(pc.Status.Conditions, pgv1.ConditionStorageAtLimit)
		return pc.Status.Phase == pgv1.PhaseReady && grown && atLimit, testkit.Conditions(pc.Status.Phase, pc.Status.Conditions), nil
	})
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if cl.Status.Phase != cnpgsim.PhaseHealthy || len(cl.Status.ResizingPVC) != 0 {
		t.Errorf("CNPG's answer to the grow: phase %q, resizing %v; observed: healthy, nothing resizing", cl.Status.Phase, cl.Status.ResizingPVC)
	}
	events, err := kube.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{FieldSelector: "involvedObject.name=shop,reason=" + pgv1.EventStorageGrown})
	if err != nil || len(events.Items) != 1 || !strings.Contains(events.Items[0].Message, "from 1Gi to 2Gi") {
		t.Errorf("StorageGrown Events: %+v (%v), want one from 1Gi to 2Gi", events, err)
	}
	pvcs, err := kube.CoreV1().PersistentVolumeClaims(ns).List(t.Context(), metav1.ListOptions{})
	if err == nil {
		for _, c := range pvcs.Items {
			t.Logf("PVC %s: request %s, capacity %s", c.Name, c.Spec.Resources.Requests.Storage(), c.Status.Capacity.Storage())
		}
	}
}
