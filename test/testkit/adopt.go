package testkit

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// CreateDatabaseOn creates PostgresDatabase name on cluster with one
// database and, when set, spec.adoptFrom.
func (k Kit) CreateDatabaseOn(t testing.TB, ns, name, cluster, adoptFrom, database string) {
	t.Helper()
	d := &pgv1.PostgresDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: cluster}, AdoptFrom: adoptFrom,
			Databases: []pgv1.DatabaseSpec{{Name: database}}},
	}
	if _, err := k.PG.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PostgresDatabase %s: %v", name, err)
	}
}

// AdoptRestored hands database "orders", which cluster restored from a
// backup of PostgresDatabase app's cluster, to PostgresDatabase copy-app
// (spec.adoptFrom: app), and checks what both tiers hold of an adoption:
// copy-app is Ready within timeout with an rw password of its own, its rw
// role reads the wantT1 rows labelled t1- of table items and none
// labelled t2-, and writes; and the source's passwords of users (read
// from app's Secrets app-orders-<suffix> before) no longer authenticate on
// cluster, since setpoint gave the adopted roles new ones. It returns
// those old passwords by user, for a tier's own checks (the source still
// takes them).
func (k Kit) AdoptRestored(t testing.TB, ns, cluster string, wantT1 int, timeout time.Duration, users map[string]string) map[string]string {
	t.Helper()
	old := map[string]string{}
	for user, suffix := range users {
		old[user] = string(k.Secret(t, ns, "app-orders-"+suffix).Data["password"])
	}
	began := time.Now()
	k.CreateDatabaseOn(t, ns, "copy-app", cluster, "app", "orders")
	k.WaitDatabase(t, ns, "copy-app", pgv1.PhaseReady, timeout)
	t.Logf("adoption of the restored database: Ready %s after create", time.Since(began).Round(time.Millisecond))

	if newRW := string(k.Secret(t, ns, "copy-app-orders-rw").Data["password"]); newRW == old["orders_rw"] {
		t.Fatal("the adopter's rw Secret holds the source's password")
	}
	rw := k.ConnectAs(t, ns, cluster, "orders", "copy-app-orders-rw")
	var t1, t2 int
	if err := rw.QueryRow(t.Context(),
		"SELECT count(*) FILTER (WHERE label LIKE 't1-%'), count(*) FILTER (WHERE label LIKE 't2-%') FROM items").Scan(&t1, &t2); err != nil {
		t.Fatalf("the adopter's rw role reads: %v", err)
	}
	if t1 != wantT1 || t2 != 0 {
		t.Fatalf("through the adopter's rw role: %d t1 rows and %d t2 rows, want %d and 0", t1, t2, wantT1)
	}
	if _, err := rw.Exec(t.Context(), "INSERT INTO items (label) VALUES ('after adoption')"); err != nil {
		t.Fatalf("the adopter's rw role writes: %v", err)
	}
	for user, password := range old {
		if _, err := k.Login(t, ns, cluster, "orders", user, password); !PasswordRefused(err) {
			t.Errorf("%s: the source's password on the restored cluster %s: %v, want refused", user, cluster, err)
		}
	}
	return old
}
