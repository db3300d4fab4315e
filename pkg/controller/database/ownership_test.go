package database

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// A ConfigMap our label-selected cache cannot see is found by the create
// (AlreadyExists), read, and, not being ours, left as it is.
func TestForeignConfigMapIsRefused(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	pc := readyCluster()
	foreign := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shop-orders-config", Namespace: ns},
		Data: map[string]string{"theirs": "yes"}}
	f := newFixture(t, append(clusterSecrets(), foreign), []runtime.Object{pc, db})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	c := cond(t, f.db("shop"), pgv1.ConditionConfigMapsReady)
	if c.Reason != "ConfigMapConflict" || !strings.Contains(c.Message, `ConfigMap "shop-orders-config" exists and was not created by setpoint`) {
		t.Fatalf("ConfigMapsReady = %+v", c)
	}
	cm, _ := f.kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "shop-orders-config", metav1.GetOptions{})
	f.expectStored(foreign, cm) // not modified
}

// A database that exists in Postgres without setpoint's marker for this
// object gets no CNPG Database (which would change its owner and, with
// Delete, drop it).
func TestExistingPostgresDatabaseIsRefused(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ comment, want string }{
		{"", "was not created by setpoint"},
		{ownership.PostgresMarker(ns, "other"), "created by setpoint for PostgresDatabase " + ns + "/other"},
	} {
		db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
		pc := readyCluster()
		f := newFixture(t, clusterSecrets(), []runtime.Object{pc, db})
		f.sql.databases = map[string]string{"orders": tc.comment}
		toDatabases(t, f, "shop")
		if _, err := f.sync("shop"); err != nil {
			t.Fatal(err)
		}
		c := cond(t, f.db("shop"), pgv1.ConditionDatabasesReady)
		if c.Reason != "DatabaseExists" || !strings.Contains(c.Message, tc.want) {
			t.Errorf("DatabasesReady = %+v", c)
		}
		if slices.ContainsFunc(f.allWrites(), func(w string) bool { return strings.HasSuffix(w, " databases") }) {
			t.Errorf("wrote a CNPG Database: %v", f.allWrites())
		}
	}
}

// A database setpoint created for this very object (its marker) is taken
// back: that is what a Retain deletion leaves.
func TestMarkedPostgresDatabaseIsAdopted(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	pc := readyCluster()
	f := newFixture(t, clusterSecrets(), []runtime.Object{pc, db})
	f.sql.databases = map[string]string{"orders": ownership.PostgresMarker(ns, "shop")}
	toDatabases(t, f, "shop")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if d := f.cnpgDB("shop-orders"); !ownership.IsControlledBy(d, db.UID) {
		t.Fatalf("CNPG Database not applied: %+v", d.ObjectMeta)
	}
}

// Retained Secrets go back only to an object of the same name on the same
// cluster.
func TestRetainedSecretOfAnotherClusterIsRefused(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	kept := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-orders-admin", Namespace: ns,
			Labels:      map[string]string{ownership.ManagedByLabel: ownership.ManagedByValue, ownership.DatabaseLabel: "shop", ownership.RetainedLabel: "true"},
			Annotations: map[string]string{ownership.RetainedForAnnotation: "PostgresDatabase/shop", ownership.RetainedClusterAnnotation: "elsewhere"}},
		Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte("orders_admin"), "password": []byte("old")},
	}
	f := newFixture(t, []runtime.Object{kept}, []runtime.Object{readyCluster(), db})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	c := cond(t, f.db("shop"), pgv1.ConditionSecretsReady)
	if c.Reason != "SecretConflict" || !strings.Contains(c.Message, `retained for PostgresDatabase/shop on cluster "elsewhere"`) {
		t.Fatalf("SecretsReady = %+v", c)
	}
	f.expectStored(kept, f.secret("shop-orders-admin")) // not taken, not changed
}
