package realcnpg

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// foreignCluster makes a CNPG Cluster by hand, as a team that ran CNPG
// before setpoint would: a PostgresCluster of the same name is refused
// (ClusterConflict), and neither that nor deleting the PostgresCluster
// with policy Delete writes or deletes the CNPG Cluster. It need not be
// healthy for that: CNPG has taken it up, setpoint must leave it alone.
func foreignCluster(t *testing.T, ns, class string) {
	theirs := &cnpgv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: ns, Labels: map[string]string{"team": "legacy"}},
		Spec: cnpgv1.ClusterSpec{
			Instances: 1, ImageName: setup.Images.Ref("postgresql"),
			Storage:               &cnpgv1.StorageConfiguration{Size: "1Gi", StorageClass: ptr.To("local")},
			PostgresConfiguration: &cnpgv1.PostgresConfiguration{Parameters: map[string]string{"shared_buffers": "32MB"}},
		},
	}
	if _, err := pg.CNPGV1().Clusters(ns).Create(t.Context(), theirs, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Eventually(t, 2*time.Minute, "CNPG takes up the foreign Cluster", func(ctx context.Context) (bool, string, error) {
		c, err := pg.CNPGV1().Clusters(ns).Get(ctx, "legacy", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return c.Status.Phase != "", "phase " + c.Status.Phase, nil
	})
	before, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "legacy", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	untouched := func(when string) {
		t.Helper()
		now, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "legacy", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: the foreign CNPG Cluster is gone: %v", when, err)
		}
		if now.Generation != before.Generation || now.Spec.Instances != 1 || len(now.OwnerReferences) != 0 ||
			!maps.Equal(now.Labels, before.Labels) || now.DeletionTimestamp != nil {
			t.Errorf("%s: the foreign CNPG Cluster changed: generation %d -> %d, %+v", when, before.Generation, now.Generation, now.ObjectMeta)
		}
		for _, m := range now.ManagedFields {
			if strings.HasPrefix(m.Manager, "setpoint") {
				t.Errorf("%s: setpoint (%s) wrote fields of the foreign CNPG Cluster: %s", when, m.Manager, m.FieldsV1)
			}
		}
	}

	c := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: ns},
		Spec:       pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got := kit.WaitCluster(t, ns, "legacy", pgv1.PhaseFailed, 2*time.Minute)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionReady, "ClusterConflict", `CNPG Cluster "legacy" exists and was not created by setpoint`)
	untouched("refused")
	kit.DeleteCluster(t, ns, "legacy")
	kit.SettleGC(t, ns)
	untouched("after deletion with policy Delete")
}
