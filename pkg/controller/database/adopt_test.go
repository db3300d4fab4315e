package database

import (
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

func adopting(name, from string) *pgv1.PostgresDatabase {
	db := newDatabase(name, pgv1.DatabaseSpec{Name: "orders"})
	db.Spec.AdoptFrom = from
	return db
}

// A database marked for the object adoptFrom names gets this object's
// CNPG Database, and the grants re-mark it as this object's.
func TestAdoptFromTakesTheNamedObjectsDatabase(t *testing.T) {
	t.Parallel()
	db := adopting("copy-app", "app")
	pc := readyCluster()
	f := newFixture(t, clusterSecrets(), []runtime.Object{pc, db})
	f.sql.databases = map[string]string{"orders": ownership.PostgresMarker(ns, "app")}
	toDatabases(t, f, "copy-app")
	if _, err := f.sync("copy-app"); err != nil {
		t.Fatal(err)
	}
	// copy-app's CNPG Database of the database app made: as shop's would
	// be, under copy-app's name, labels and controller reference.
	wantDB := &cnpgv1.Database{
		ObjectMeta: metav1.ObjectMeta{Name: "copy-app-orders", Namespace: ns,
			Labels: map[string]string{"app.kubernetes.io/managed-by": "setpoint", "postgres.setpoint.dev/database": "copy-app"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "postgres.setpoint.dev/v1alpha1", Kind: "PostgresDatabase",
				Name: "copy-app", UID: db.UID, Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}}},
		Spec: cnpgv1.DatabaseSpec{Cluster: cnpgv1.LocalObjectReference{Name: "pg"}, Name: "orders", Owner: "orders_admin",
			Ensure: cnpgv1.EnsurePresent, DatabaseReclaimPolicy: "delete"},
	}
	f.expectStored(wantDB, f.cnpgDB("copy-app-orders"))
	f.markApplied("copy-app-orders", true, "")
	if _, err := f.sync("copy-app"); err != nil {
		t.Fatal(err)
	}
	want := "COMMENT ON DATABASE \"orders\" IS '" + ownership.PostgresMarker(ns, "copy-app") + "'"
	if !slices.ContainsFunc(f.sql.execs, func(c sqlCall) bool { return slices.Contains(c.stmts, want) }) {
		t.Fatalf("the database is not re-marked (%s): %+v", want, f.sql.execs)
	}
}

// adoptFrom takes nothing else: a database marked for another object, one
// without a marker, and one whose source object still uses the cluster
// are refused, and no CNPG Database is written.
func TestAdoptFromRefusesEverythingElse(t *testing.T) {
	t.Parallel()
	src := newDatabase("app", pgv1.DatabaseSpec{Name: "billing"})
	for _, tc := range []struct {
		name    string
		comment string
		others  []runtime.Object
		want    string
	}{
		{"another object's marker", ownership.PostgresMarker(ns, "other"), nil,
			"spec.adoptFrom takes over only what setpoint marked for PostgresDatabase " + ns + "/app"},
		{"no marker", "", nil, "was not created by setpoint"},
		{"a hand-written comment", "orders of the shop", nil, "was not created by setpoint"},
		{"the marker in another namespace", ownership.PostgresMarker("elsewhere", "app"), nil, "PostgresDatabase elsewhere/app"},
		{"the source still on this cluster", ownership.PostgresMarker(ns, "app"), []runtime.Object{src},
			`while PostgresDatabase "app" uses this cluster`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := adopting("copy-app", "app")
			pc := readyCluster()
			f := newFixture(t, clusterSecrets(), append([]runtime.Object{pc, db}, tc.others...))
			f.sql.databases = map[string]string{"orders": tc.comment}
			toDatabases(t, f, "copy-app")
			if _, err := f.sync("copy-app"); err != nil {
				t.Fatal(err)
			}
			c := cond(t, f.db("copy-app"), pgv1.ConditionDatabasesReady)
			if c.Reason != "DatabaseExists" || !strings.Contains(c.Message, tc.want) {
				t.Errorf("DatabasesReady = %+v", c)
			}
			if slices.ContainsFunc(f.allWrites(), func(w string) bool { return strings.HasSuffix(w, " databases") }) {
				t.Errorf("wrote a CNPG Database: %v", f.allWrites())
			}
		})
	}
}

// The source on another cluster (the one a restored cluster was copied
// from) does not hold the adoption back.
func TestAdoptFromSourceOnAnotherCluster(t *testing.T) {
	t.Parallel()
	src := newDatabase("app", pgv1.DatabaseSpec{Name: "orders"})
	src.Spec.ClusterRef.Name = "shop"
	db := adopting("copy-app", "app")
	pc := readyCluster()
	f := newFixture(t, clusterSecrets(), []runtime.Object{pc, db, src})
	f.sql.databases = map[string]string{"orders": ownership.PostgresMarker(ns, "app")}
	toDatabases(t, f, "copy-app")
	if _, err := f.sync("copy-app"); err != nil {
		t.Fatal(err)
	}
	if d := f.cnpgDB("copy-app-orders"); !ownership.IsControlledBy(d, db.UID) {
		t.Fatalf("CNPG Database not applied: %+v", d.ObjectMeta)
	}
}
