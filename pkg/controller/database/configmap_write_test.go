package database

import (
	"maps"
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// The first ConfigMap of a database costs one request: the create proves
// it absent; no lookup before it.
func TestNewConfigMapIsOneCreate(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	pc := readyCluster()
	f := newFixture(t, clusterSecrets(), []runtime.Object{pc, db})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	var onConfigMaps []string
	for _, a := range f.kube.Actions() {
		if a.GetResource().Resource == "configmaps" {
			onConfigMaps = append(onConfigMaps, a.GetVerb())
		}
	}
	if !slices.Equal(onConfigMaps, []string{"create"}) {
		t.Fatalf("requests on configmaps = %v, want one create", onConfigMaps)
	}
	cm, err := f.kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "shop-orders-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !ownership.IsControlledBy(cm, db.UID) || cm.Data["database"] != "orders" || cm.Annotations[policyAnnotation] != "Delete" {
		t.Fatalf("ConfigMap = %+v", cm)
	}
}

// A key we no longer publish (ro-user once readOnlyRole is off) is
// removed by the patch; the others are set.
func TestDataPatchRemovesWhatWeNoLongerPublish(t *testing.T) {
	t.Parallel()
	got := dataPatch(map[string]string{"host": "a", "ro-user": "x_ro"}, map[string]string{"host": "b", "port": "5432"})
	want := map[string]any{"host": "b", "port": "5432", "ro-user": nil}
	if !maps.Equal(got, want) {
		t.Fatalf("dataPatch = %v, want %v", got, want)
	}
}
