package cluster

import (
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

func none(string) bool { return false }
func all(string) bool  { return true }

// A database with no status yet claims its roles once its generated
// Secrets are in place; a Secret the spec names (the user's own) still
// needs the status to say it was validated.
func TestGeneratedSecretsInPlaceClaimBeforeAnyStatus(t *testing.T) {
	db := claimant("app", "uid-1", time.Hour, "orders")
	db.Status = pgv1.PostgresDatabaseStatus{}
	if got := intentOf(db, none, none); len(got) != 0 {
		t.Fatalf("intent before the Secrets exist = %+v", got)
	}
	placedAdminOnly := func(s string) bool { return s == "app-orders-admin" }
	if got := intentOf(db, none, placedAdminOnly); len(got) != 0 {
		t.Fatalf("intent with one of two Secrets = %+v", got)
	}
	want := []roleIntent{
		{Name: "orders_admin", Ensure: pgv1.RoleEnsurePresent, Secret: "app-orders-admin"},
		{Name: "orders_rw", Ensure: pgv1.RoleEnsurePresent, Secret: "app-orders-rw"},
	}
	if got := intentOf(db, none, all); !slices.Equal(got, want) {
		t.Fatalf("intent with both Secrets placed = %+v", got)
	}
	db.Spec.Databases[0].PasswordConfig = &pgv1.DatabasePasswordConfig{AdminSecretRef: &pgv1.LocalObjectReference{Name: "mine"}}
	if got := intentOf(db, none, all); len(got) != 0 {
		t.Fatalf("intent with the user's own Secret not yet validated = %+v", got)
	}
}

func credential(name, db string, owner *pgv1.PostgresDatabase) *corev1.Secret {
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns",
		Labels: controller.ManagedLabels(controller.DatabaseLabel, db)}}
	if owner != nil {
		s.OwnerReferences = []metav1.OwnerReference{controller.OwnerRef(owner, pgv1.SchemeGroupVersion.WithKind("PostgresDatabase"))}
	}
	return s
}

// Only Secrets controlled by the very PostgresDatabase count as placed,
// and only their events wake its cluster.
func TestPlacedSecretsAreThoseTheDatabaseControls(t *testing.T) {
	db := claimant("app", "uid-1", time.Hour, "orders")
	db.Spec.ClusterRef.Name = "shop"
	db.Finalizers = []string{controller.DatabaseFinalizer}
	other := claimant("app", "uid-old", 2*time.Hour, "orders") // a deleted namesake
	other.Finalizers = db.Finalizers
	secrets := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	admin, rw := credential("app-orders-admin", "app", db), credential("app-orders-rw", "app", other)
	for _, s := range []*corev1.Secret{admin, rw} {
		if err := secrets.Add(s); err != nil {
			t.Fatal(err)
		}
	}
	dbs := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	if err := dbs.Add(db); err != nil {
		t.Fatal(err)
	}
	c := &Controller{secrets: corelisters.NewSecretLister(secrets), databases: dbs}
	placed, err := c.placedSecrets("ns", []*pgv1.PostgresDatabase{db})
	if err != nil {
		t.Fatal(err)
	}
	o := &observation{placed: placed}
	if !o.placedFor(db)("app-orders-admin") || o.placedFor(db)("app-orders-rw") || o.placedFor(other)("app-orders-admin") {
		t.Fatalf("placed = %v", placed)
	}

	if keys := c.clusterOfCredential(admin); !slices.Equal(keys, []workqueue.Key{{Namespace: "ns", Name: "shop"}}) {
		t.Errorf("keys of our Secret = %v", keys)
	}
	if keys := c.clusterOfCredential(rw); len(keys) != 0 {
		t.Errorf("a Secret of a deleted namesake woke %v", keys)
	}
	if keys := c.clusterOfCredential(credential("x", "", nil)); len(keys) != 0 {
		t.Errorf("an unlabelled Secret woke %v", keys)
	}
	// Without the finalizer, Secrets in place claim nothing: the
	// database's cleanup is not guaranteed yet.
	bare := db.DeepCopy()
	bare.Finalizers = nil
	if placed, err := c.placedSecrets("ns", []*pgv1.PostgresDatabase{bare}); err != nil || len(placed) != 0 {
		t.Errorf("placed without the finalizer = %v (%v)", placed, err)
	}
	if !roleIntentChanged(bare, db) {
		t.Error("the finalizer being added did not wake the cluster")
	}

	adopted := rw.DeepCopy()
	adopted.OwnerReferences = admin.OwnerReferences
	if !controllerChanged(rw, adopted) || controllerChanged(admin, admin.DeepCopy()) {
		t.Error("controllerChanged does not tell an adoption from a plain update")
	}
}
