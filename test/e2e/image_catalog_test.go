package e2e_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

var clusterImageCatalogs = schema.GroupVersionResource{Group: "postgresql.cnpg.io", Version: "v1", Resource: "clusterimagecatalogs"}

// A class that names a ClusterImageCatalog runs its clusters on the
// catalog's exact image for their major: the CNPG Cluster names the
// catalog and the major (no imageName), and Postgres runs. A cluster whose
// major the catalog lacks reports CloudNativePG's message, naming the
// catalog and the major, and is not Ready; once the catalog has the
// major it becomes Ready by itself. A new image for a major in the
// catalog (a minor upgrade) reaches the CNPG Cluster with no edit of the
// cluster.
func TestClassPinsImagesThroughACatalog(t *testing.T) {
	ns := kit.Namespace(t)
	dyn := dynamic.NewForConfigOrDie(env.Config)
	catalog := "e2e-" + ns
	images := map[int64]string{16: "ghcr.io/cloudnative-pg/postgresql:16.6-pinned"}
	putCatalog(t, dyn, catalog, images)
	startOperator(t, "catalog-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	ref := &pgv1.ImageCatalogRef{Kind: pgv1.ImageCatalogKindCluster, Name: catalog}
	settings := func(major int32) pgv1.ClusterSettings {
		return pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To(major), ImageCatalog: ref,
			Storage: &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("1Gi"))}}
	}
	newClass(t, "e2e-pinned-"+ns, settings(16))
	newClass(t, "e2e-missing-"+ns, settings(17))

	newCluster(t, ns, "pinned", "e2e-pinned-"+ns, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "pinned", pgv1.PhaseReady, 120*time.Second)
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "pinned", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r := cl.Spec.ImageCatalogRef; r == nil || r.APIGroup == nil || *r.APIGroup != "postgresql.cnpg.io" ||
		r.Kind != "ClusterImageCatalog" || r.Name != catalog || r.Major != 16 || cl.Spec.ImageName != "" {
		t.Fatalf("CNPG Cluster imageName %q, imageCatalogRef %+v; want the catalog with major 16 only", cl.Spec.ImageName, r)
	}
	if got := sim.Image(ns, "pinned"); got != images[16] {
		t.Errorf("the stand-in runs image %q, want the catalog's %q", got, images[16])
	}
	if v := queryString(t, connectSuperuser(t, ns, "pinned"), "SELECT current_setting('server_version_num')"); v == "" {
		t.Errorf("Postgres gave no server_version_num")
	}

	newCluster(t, ns, "missing", "e2e-missing-"+ns, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	got := kit.WaitCluster(t, ns, "missing", pgv1.PhaseFailed, 120*time.Second)
	c := meta.FindStatusCondition(got.Status.Conditions, pgv1.ConditionProvisionerReady)
	for _, want := range []string{
		`"Cluster has incomplete or invalid image catalog": selected major version is not available in the catalog`,
		`ClusterImageCatalog "` + catalog + `", major 17`,
	} {
		if c == nil || !strings.Contains(c.Message, want) {
			t.Errorf("ProvisionerReady = %+v, want a message with %q", c, want)
		}
	}
	if r := meta.FindStatusCondition(got.Status.Conditions, pgv1.ConditionReady); r == nil || r.Status == metav1.ConditionTrue {
		t.Errorf("Ready = %+v with no image for the major", r)
	}

	images[17] = "ghcr.io/cloudnative-pg/postgresql:17.2-pinned"
	putCatalog(t, dyn, catalog, images)
	kit.WaitCluster(t, ns, "missing", pgv1.PhaseReady, 120*time.Second)

	// The minor-upgrade path: a new image for major 16 in the catalog.
	images[16] = "ghcr.io/cloudnative-pg/postgresql:16.7-pinned"
	putCatalog(t, dyn, catalog, images)
	kit.Until(t, 60*time.Second, "the catalog's new image picked", func(context.Context) (bool, error) {
		return sim.Image(ns, "pinned") == images[16], nil
	})
}

// putCatalog creates or replaces the ClusterImageCatalog with images by
// major; the test's cleanup deletes it.
func putCatalog(t *testing.T, dyn dynamic.Interface, name string, images map[int64]string) {
	t.Helper()
	var list []any
	for major, image := range images {
		list = append(list, map[string]any{"major": major, "image": image})
	}
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "postgresql.cnpg.io/v1", "kind": "ClusterImageCatalog",
		"metadata": map[string]any{"name": name},
		"spec":     map[string]any{"images": list},
	}}
	if _, err := dyn.Resource(clusterImageCatalogs).Apply(t.Context(), name, obj, metav1.ApplyOptions{FieldManager: "e2e", Force: true}); err != nil {
		t.Fatalf("apply ClusterImageCatalog: %v", err)
	}
	t.Cleanup(func() {
		_ = dyn.Resource(clusterImageCatalogs).Delete(context.WithoutCancel(t.Context()), name, metav1.DeleteOptions{})
	})
}
