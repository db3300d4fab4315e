package cluster

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// ourStore is the ObjectStore shop-backup controlled by PostgresCluster
// shop, at path.
func ourStore(path string) *barmanv1.ObjectStore {
	s := &barmanv1.ObjectStore{ObjectMeta: metav1.ObjectMeta{Name: "shop-backup", Namespace: "ns",
		OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(&metav1.ObjectMeta{Name: "shop", UID: "uid-shop"}, gvk)}}}
	s.Spec.Configuration.DestinationPath = path
	return s
}

// archivingThrough is a CNPG Cluster shop of PostgresCluster shop that
// archives through the ObjectStore store.
func archivingThrough(store string) *cnpgv1.Cluster {
	c := cnpgArchiving("shop", ownership.OwnerRef(&metav1.ObjectMeta{Name: "shop", UID: "uid-shop"}, gvk))
	c.Spec.Plugins[0].Parameters["barmanObjectName"] = store
	return c
}

// A new cluster's folder has its namespace in it (Namespaced, the
// default) or not (the class's Shared layout); a cluster already
// archiving keeps the folder it has, whichever of the two it is; a
// store the class moved elsewhere, a store nothing archives through
// and a foreign CNPG Cluster keep nothing.
func TestArchiveRoot(t *testing.T) {
	t.Parallel()
	foreign := archivingThrough("shop-backup")
	foreign.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Other", Name: "x", UID: "uid-x", Controller: func() *bool { b := true; return &b }()}}
	for _, tc := range []struct {
		name   string
		layout pgv1.ArchiveLayout
		store  *barmanv1.ObjectStore
		cnpg   *cnpgv1.Cluster
		want   string
	}{
		{"new cluster", "", nil, nil, "s3://b/pg/ns"},
		{"new cluster, Namespaced", pgv1.ArchiveLayoutNamespaced, nil, nil, "s3://b/pg/ns"},
		{"new cluster, Shared", pgv1.ArchiveLayoutShared, nil, nil, "s3://b/pg"},
		{"archiving before namespaced folders", "", ourStore("s3://b/pg"), archivingThrough("shop-backup"), "s3://b/pg"},
		{"archiving before, trailing slash kept", "", ourStore("s3://b/pg/"), archivingThrough("shop-backup"), "s3://b/pg/"},
		{"archiving namespaced, class now Shared", pgv1.ArchiveLayoutShared, ourStore("s3://b/pg/ns"), archivingThrough("shop-backup"), "s3://b/pg/ns"},
		{"old store, nothing archiving yet", "", ourStore("s3://b/pg"), nil, "s3://b/pg/ns"},
		{"old store, cluster archiving elsewhere", "", ourStore("s3://b/pg"), archivingThrough("other-store"), "s3://b/pg/ns"},
		{"class moved the store", "", ourStore("s3://old/pg"), archivingThrough("shop-backup"), "s3://b/pg/ns"},
		{"a foreign CNPG Cluster", "", ourStore("s3://b/pg"), foreign, "s3://b/pg/ns"},
		{"CNPG Cluster lost, the ConfigMap records the old root", "", ourStore("s3://b/pg"), nil, "s3://b/pg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testPass()
			p.want = &desired{ObjectStore: &pgv1.ObjectStoreSpec{DestinationPath: "s3://b/pg/", Layout: tc.layout}}
			p.obs = &observation{objectStore: tc.store, cnpg: tc.cnpg}
			if strings.HasPrefix(tc.name, "CNPG Cluster lost") {
				p.obs.configMap = connectionRecording("s3://b/pg")
			}
			if got := archiveRoot(p); got != tc.want {
				t.Errorf("archiveRoot = %q, want %q", got, tc.want)
			}
		})
	}
}

// The ObjectStore setpoint writes carries the namespaced root, and the
// status shows the whole folder.
func TestObjectStoreCarriesNamespacedFolder(t *testing.T) {
	t.Parallel()
	p := testPass()
	p.want = &desired{ObjectStore: &pgv1.ObjectStoreSpec{DestinationPath: "s3://b/pg", CredentialsSecretName: "creds"}}
	p.obs, p.deps = &observation{}, &deps{}
	if got := *desiredObjectStore(p).Spec.Configuration.DestinationPath; got != "s3://b/pg/ns" {
		t.Fatalf("destinationPath = %q", got)
	}
	if h := (objectStoreComponent{}).Observe(t.Context(), p, nil); h.Phase != pgv1.PhaseReady {
		t.Fatalf("health = %+v", h)
	}
	if got := p.status.BackupStatus.ArchivePath; got != "s3://b/pg/ns/shop" {
		t.Fatalf("archivePath = %q", got)
	}
	if objectStoreMatches(ourStore("s3://b/pg"), p.want.ObjectStore, archiveRoot(p)) {
		t.Fatal("an ObjectStore at the class's root matches a new cluster's namespaced folder")
	}
}

// connectionRecording is the connection ConfigMap of shop recording that
// its CNPG Cluster archived under root.
func connectionRecording(root string) *informers.CachedConfigMap {
	return informers.CachedConfigMapOf(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shop-connection", Namespace: "ns",
		OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(&metav1.ObjectMeta{Name: "shop", UID: "uid-shop"}, gvk)},
		Annotations:     map[string]string{archiveRootAnnotation: root}}})
}
