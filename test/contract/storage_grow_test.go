package contract_test

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

func autoGrow(limit string) *pgv1.AutoGrowSpec {
	return &pgv1.AutoGrowSpec{Enabled: ptr.To(true), Limit: ptr.To(resource.MustParse(limit))}
}

// TestAutoGrowRules: every storage.autoGrow rule the API server can check,
// on the cluster and the class, with its message.
func TestAutoGrowRules(t *testing.T) {
	ns := newNamespace(t)
	cases := []struct {
		name string
		ag   func() *pgv1.AutoGrowSpec
		want string
	}{
		{"enabled without limit", func() *pgv1.AutoGrowSpec { return &pgv1.AutoGrowSpec{Enabled: ptr.To(true)} },
			"autoGrow.limit is required when autoGrow is enabled: setpoint never grows a volume without a bound"},
		{"limit under size", func() *pgv1.AutoGrowSpec { return autoGrow("5Gi") },
			"storage.autoGrow.limit must be at least storage.size"},
		{"threshold 0", func() *pgv1.AutoGrowSpec { a := autoGrow("20Gi"); a.Threshold = ptr.To[int32](0); return a },
			"autoGrow.threshold is a percentage of the volume between 1 and 99"},
		{"threshold 100", func() *pgv1.AutoGrowSpec { a := autoGrow("20Gi"); a.Threshold = ptr.To[int32](100); return a },
			"autoGrow.threshold is a percentage of the volume between 1 and 99"},
		{"increment 0%", func() *pgv1.AutoGrowSpec { a := autoGrow("20Gi"); a.Increment = ptr.To("0%"); return a },
			`autoGrow.increment must be a percentage from 1% to 999% ("20%") or a positive quantity ("10Gi")`},
		{"increment 1000%", func() *pgv1.AutoGrowSpec { a := autoGrow("20Gi"); a.Increment = ptr.To("1000%"); return a },
			`autoGrow.increment must be a percentage from 1% to 999%`},
		{"increment not a quantity", func() *pgv1.AutoGrowSpec { a := autoGrow("20Gi"); a.Increment = ptr.To("lots"); return a },
			`autoGrow.increment must be a percentage from 1% to 999%`},
		{"negative increment", func() *pgv1.AutoGrowSpec { a := autoGrow("20Gi"); a.Increment = ptr.To("-1Gi"); return a },
			`autoGrow.increment must be a percentage from 1% to 999%`},
		{"zero limit", func() *pgv1.AutoGrowSpec { return &pgv1.AutoGrowSpec{Limit: ptr.To(resource.MustParse("0"))} },
			"autoGrow.limit must be greater than zero"},
		{"cooldown under 1s", func() *pgv1.AutoGrowSpec {
			a := autoGrow("20Gi")
			a.Cooldown = &metav1.Duration{Duration: 500 * time.Millisecond}
			return a
		}, `autoGrow.cooldown must be a duration of at least 1s, for example "10m"`},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := validCluster(ns)
			c.Name = fmt.Sprintf("grow-%d", i)
			c.Spec.Storage.AutoGrow = tc.ag()
			_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
			expectRefused(t, err, tc.want)
			class := &pgv1.PostgresClusterClass{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s-grow-%d", ns, i)},
				Spec: pgv1.PostgresClusterClassSpec{ClusterSettings: pgv1.ClusterSettings{Storage: c.Spec.Storage}}}
			_, err = pg.PostgresV1alpha1().PostgresClusterClasses().Create(t.Context(), class, metav1.CreateOptions{})
			expectRefused(t, err, tc.want)
		})
	}
	t.Run("accepted shapes", func(t *testing.T) {
		for i, inc := range []string{"20%", "1%", "999%", "10Gi", "512Mi"} {
			c := validCluster(ns)
			c.Name = fmt.Sprintf("grow-ok-%d", i)
			c.Spec.Storage.AutoGrow = autoGrow("10Gi") // limit = size is allowed
			c.Spec.Storage.AutoGrow.Increment = ptr.To(inc)
			c.Spec.Storage.AutoGrow.Threshold = ptr.To[int32](99)
			c.Spec.Storage.AutoGrow.Cooldown = &metav1.Duration{Duration: time.Second}
			if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
				t.Errorf("increment %s refused: %v", inc, err)
			}
		}
		// Turned off, nothing else is required: a class may preset the rest.
		c := validCluster(ns)
		c.Name = "grow-off"
		c.Spec.Storage.AutoGrow = &pgv1.AutoGrowSpec{Enabled: ptr.To(false), Threshold: ptr.To[int32](70)}
		if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
			t.Errorf("disabled auto-grow refused: %v", err)
		}
	})
}

// TestGrownStorageSizeAppliesStrictly: the sizes auto-grow writes (whole
// mebibytes in Kubernetes' binary notation, or the limit as the user
// wrote it) pass CNPG's schema with strict field validation and CNPG's
// own webhook, as a raise of an existing Cluster; CNPG's webhook refuses
// the shrink setpoint never sends.
func TestGrownStorageSizeAppliesStrictly(t *testing.T) {
	ns := newNamespace(t)
	withSize := func(size string) *cnpgac.ClusterApplyConfiguration {
		c := fullCluster(ns)
		c.Spec.WithStorage(cnpgac.StorageConfiguration().WithSize(size).WithStorageClass("fast"))
		return c
	}
	if err := applyStrict(t, clusterGVR, ns, "shop", mustJSON(t, withSize("64Mi"))); err != nil {
		t.Fatalf("initial Cluster: %v", err)
	}
	// 64Mi +20 % = 76.8Mi → 77Mi; 77Mi +20 % → 93Mi; a limit written in
	// decimal units; a large volume grown by a quantity.
	for _, size := range []string{"77Mi", "93Mi", "100M", "11Gi", "1025Gi"} {
		if err := applyStrict(t, clusterGVR, ns, "shop", mustJSON(t, withSize(size))); err != nil {
			t.Fatalf("grown storage.size %s refused: %v", size, err)
		}
		cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if cl.Spec.Storage == nil || cl.Spec.Storage.Size != size {
			t.Errorf("storage.size read back as %+v, want %s", cl.Spec.Storage, size)
		}
	}
	err := applyStrict(t, clusterGVR, ns, "shop", mustJSON(t, withSize("11Gi")))
	expectRefused(t, err, "can't shrink existing storage from 1025Gi to 11Gi")
}
