package cnpgsim_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// resizeDelay is how long the dedicated Simulator takes to resize volumes.
const resizeDelay = 2 * time.Second

// A larger storage.size is taken as CNPG takes it with an expandable
// storage class: the PVCs are reported resizing, then healthy at the new
// size, and Postgres keeps running (an online resize); CNPG's webhook
// refuses a shrink.
func TestStorageGrowResizesOnline(t *testing.T) {
	needControlPlane(t)
	ns := newNamespace(t)
	newCluster(t, ns, "vol", func(c *cnpgv1.Cluster) { c.Spec.Instances = 2 })
	c := waitHealthy(t, ns, "vol")
	pvcs := []string{"vol-1", "vol-2"}
	if !slices.Equal(c.Status.HealthyPVC, pvcs) || len(c.Status.ResizingPVC) != 0 {
		t.Fatalf("healthyPVC %v, resizingPVC %v", c.Status.HealthyPVC, c.Status.ResizingPVC)
	}
	if got := sim.VolumeSize(ns, "vol"); got != "1Gi" {
		t.Fatalf("volume size %q, want 1Gi", got)
	}
	started := superQuery[time.Time](t, ns, "vol", "postgres", "SELECT pg_postmaster_start_time()")

	updateCluster(t, ns, "vol", func(c *cnpgv1.Cluster) { c.Spec.Storage.Size = "1536Mi" })
	eventually(t, resizeDelay, "PVCs resizing", func() error {
		c := getCluster(t, ns, "vol")
		if !slices.Equal(c.Status.ResizingPVC, pvcs) || len(c.Status.HealthyPVC) != 0 {
			return fmt.Errorf("healthyPVC %v, resizingPVC %v", c.Status.HealthyPVC, c.Status.ResizingPVC)
		}
		return nil
	})
	if got := sim.VolumeSize(ns, "vol"); got != "1Gi" {
		t.Errorf("volume size %q while resizing, want 1Gi", got)
	}
	eventually(t, resizeDelay+10*time.Second, "resize done", func() error {
		c := getCluster(t, ns, "vol")
		if !slices.Equal(c.Status.HealthyPVC, pvcs) || len(c.Status.ResizingPVC) != 0 {
			return fmt.Errorf("healthyPVC %v, resizingPVC %v", c.Status.HealthyPVC, c.Status.ResizingPVC)
		}
		return nil
	})
	if got := sim.VolumeSize(ns, "vol"); got != "1536Mi" {
		t.Errorf("volume size %q after the resize, want 1536Mi", got)
	}
	c = getCluster(t, ns, "vol")
	if c.Status.Phase != "Cluster in healthy state" || c.Status.ReadyInstances != 2 {
		t.Errorf("after the resize: phase %q, %d ready", c.Status.Phase, c.Status.ReadyInstances)
	}
	if again := superQuery[time.Time](t, ns, "vol", "postgres", "SELECT pg_postmaster_start_time()"); !again.Equal(started) {
		t.Errorf("Postgres restarted for the resize (%s → %s)", started, again)
	}

	c.Spec.Storage.Size = "1Gi"
	_, err := pg.CNPGV1().Clusters(ns).Update(t.Context(), c, metav1.UpdateOptions{})
	if err == nil || !strings.Contains(err.Error(), "can't shrink existing storage") {
		t.Errorf("shrink: %v, want CNPG's webhook refusal", err)
	}
}
