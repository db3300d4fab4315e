package contract_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// A CNPG Cluster naming an image catalog, as the provisioner applies it,
// passes CNPG's real schema and webhooks; and since CNPG refuses
// imageName beside imageCatalogRef, moving between the two must work by
// one apply that leaves the other out (ours, so the apply removes it).
func TestCatalogClusterAppliesAndSwitches(t *testing.T) {
	ns := newNamespace(t)
	withCatalog := func(spec *cnpgac.ClusterSpecApplyConfiguration) {
		spec.ImageName = nil
		spec.WithImageCatalogRef(cnpgac.ImageCatalogRef().WithAPIGroup("postgresql.cnpg.io").
			WithKind("ClusterImageCatalog").WithName("postgresql").WithMajor(16))
	}
	cl := fullCluster(ns)
	withCatalog(cl.Spec)
	if err := applyStrict(t, clusterGVR, ns, "shop", mustJSON(t, cl)); err != nil {
		t.Fatalf("CNPG refused a Cluster with imageCatalogRef: %v", err)
	}
	got, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := got.Spec.ImageCatalogRef
	if r == nil || r.APIGroup == nil || *r.APIGroup != "postgresql.cnpg.io" || r.Kind != "ClusterImageCatalog" ||
		r.Name != "postgresql" || r.Major != 16 || got.Spec.ImageName != "" {
		t.Fatalf("read back imageName %q, imageCatalogRef %+v", got.Spec.ImageName, r)
	}

	// Back to an image by name, then to the catalog again.
	if err := applyStrict(t, clusterGVR, ns, "shop", mustJSON(t, fullCluster(ns))); err != nil {
		t.Fatalf("catalog → imageName refused: %v", err)
	}
	if got, err = pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	if got.Spec.ImageCatalogRef != nil || got.Spec.ImageName != "ghcr.io/cloudnative-pg/postgresql:16" {
		t.Fatalf("after the move to imageName: imageName %q, imageCatalogRef %+v", got.Spec.ImageName, got.Spec.ImageCatalogRef)
	}
	if err := applyStrict(t, clusterGVR, ns, "shop", mustJSON(t, cl)); err != nil {
		t.Fatalf("imageName → catalog refused: %v", err)
	}
}
