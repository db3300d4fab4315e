package v1alpha1_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	pgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// The fake clientset serves server-side apply only when the apply
// configurations carry an OpenAPI schema; this proves codegen wired it.
func TestFakeClientsetServesServerSideApply(t *testing.T) {
	ctx := t.Context()
	cs := fake.NewClientset()
	opts := metav1.ApplyOptions{FieldManager: "setpoint", Force: true}

	pgc := pgac.PostgresCluster("shop", "default").
		WithSpec(pgac.PostgresClusterSpec().WithClass("standard").WithInstances(2))
	got, err := cs.PostgresV1alpha1().PostgresClusters("default").Apply(ctx, pgc, opts)
	if err != nil {
		t.Fatalf("apply PostgresCluster: %v", err)
	}
	if got.Spec.Class != "standard" || got.Spec.Instances == nil || *got.Spec.Instances != 2 {
		t.Fatalf("applied PostgresCluster spec = %+v", got.Spec)
	}

	cl := cnpgac.Cluster("shop", "default").WithSpec(cnpgac.ClusterSpec().
		WithInstances(2).
		WithEnableSuperuserAccess(true).
		WithPostgresConfiguration(cnpgac.PostgresConfiguration().WithParameters(map[string]string{"work_mem": "16MB"})))
	if _, err := cs.CNPGV1().Clusters("default").Apply(ctx, cl, opts); err != nil {
		t.Fatalf("apply CNPG Cluster: %v", err)
	}
	// A second apply by the same manager drops what it no longer sets.
	cl.Spec.PostgresConfiguration = nil
	cl.Spec.WithEnableSuperuserAccess(false)
	updated, err := cs.CNPGV1().Clusters("default").Apply(ctx, cl, opts)
	if err != nil {
		t.Fatalf("re-apply CNPG Cluster: %v", err)
	}
	if updated.Spec.PostgresConfiguration != nil {
		t.Errorf("parameters survived re-apply without them: %+v", updated.Spec.PostgresConfiguration)
	}
	if ptr.Deref(updated.Spec.EnableSuperuserAccess, true) {
		t.Errorf("enableSuperuserAccess = %v, want false", updated.Spec.EnableSuperuserAccess)
	}
}
