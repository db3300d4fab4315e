package database

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
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
	f.expectStored(shopConfigMap("orders"), cm)
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

// The cache holds a ConfigMap's data as a digest, so a patch reads the
// keys to remove from the API server. A key added by hand is removed;
// when the ConfigMap was replaced since the cache saw it, nothing is
// patched and the pass retries: the next one judges the new ConfigMap.
func TestConfigMapDriftReadsTheLiveData(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	cms := f.kube.CoreV1().ConfigMaps(ns)
	drift := func() *corev1.ConfigMap {
		cm, err := cms.Get(t.Context(), "shop-orders-config", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Data["by-hand"] = "x"
		if cm, err = cms.Update(t.Context(), cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		return cm
	}
	drift()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	cm, err := cms.Get(t.Context(), "shop-orders-config", metav1.GetOptions{})
	if err != nil || cm.Data["by-hand"] != "" || cm.Data["database"] != "orders" {
		t.Fatalf("ConfigMap after the pass: %v, %v", cm.Data, err)
	}

	cached := drift()
	f.refresh() // the cache sees the drift, then the ConfigMap is replaced
	replaced := cached.DeepCopy()
	replaced.UID, replaced.ResourceVersion = "uid-replaced", ""
	if err := cms.Delete(t.Context(), cached.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Create(t.Context(), replaced, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.kube.ClearActions()
	_, err = f.c.sync(t.Context(), workqueue.Key{Namespace: ns, Name: "shop"})
	if !apierrors.IsConflict(err) {
		t.Fatalf("pass on a replaced ConfigMap: %v, want a conflict", err)
	}
	for _, a := range f.kube.Actions() {
		if a.GetResource().Resource == "configmaps" && a.GetVerb() != "get" {
			t.Errorf("%s of a ConfigMap the pass did not judge", a.GetVerb())
		}
	}
}
