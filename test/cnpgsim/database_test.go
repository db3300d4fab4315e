package cnpgsim_test

import (
	"fmt"
	"slices"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

func withExtensions(names ...string) func(*cnpgv1.Database) {
	return func(db *cnpgv1.Database) {
		for _, e := range names {
			db.Spec.Extensions = append(db.Spec.Extensions, cnpgv1.ExtensionSpec{Name: e, Ensure: cnpgv1.EnsurePresent})
		}
	}
}

func sharedDatabase(db *cnpgv1.Database) { db.Labels = map[string]string{sharedLabel: "true"} }

func newDatabase(t *testing.T, ns, name, cluster, dbName, owner, reclaim string, opts ...func(*cnpgv1.Database)) {
	t.Helper()
	db := &cnpgv1.Database{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: cnpgv1.DatabaseSpec{
			Cluster: cnpgv1.LocalObjectReference{Name: cluster}, Name: dbName, Owner: owner,
			Ensure: cnpgv1.EnsurePresent, DatabaseReclaimPolicy: reclaim,
		},
	}
	for _, o := range opts {
		o(db)
	}
	if _, err := pg.CNPGV1().Databases(ns).Create(t.Context(), db, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil {
		t.Fatalf("create database %s: %v", name, err)
	}
}

func waitDatabase(t *testing.T, ns, name string, applied bool, message string) *cnpgv1.Database {
	t.Helper()
	var db *cnpgv1.Database
	eventually(t, 20*time.Second, "database "+name+" status", func() error {
		var err error
		if db, err = pg.CNPGV1().Databases(ns).Get(t.Context(), name, metav1.GetOptions{}); err != nil {
			return err
		}
		st := db.Status
		// CNPG records the generation only on success.
		observed := st.ObservedGeneration == db.Generation
		if st.Applied == nil || *st.Applied != applied || st.Message != message || observed != applied {
			return fmt.Errorf("status = %+v", st)
		}
		return nil
	})
	return db
}

func dbExists(t *testing.T, ns, cluster, name string) bool {
	t.Helper()
	return superQuery[int64](t, ns, cluster, "postgres", "SELECT count(*) FROM pg_database WHERE datname = $1", name) == 1
}

func TestDatabases(t *testing.T) {
	ns := newNamespace(t)
	newCluster(t, ns, "dbs", func(c *cnpgv1.Cluster) {
		c.Spec.Managed = &cnpgv1.ManagedConfiguration{Roles: []cnpgv1.RoleConfiguration{{Name: "orders_admin", Login: boolPtr(true)}}}
	})
	// Created before the Cluster is ready: it waits for the primary.
	newDatabase(t, ns, "orders", "dbs", "orders", "orders_admin", "delete", withExtensions("pg_trgm", "uuid-ossp"))
	newDatabase(t, ns, "catalog", "dbs", "catalog", "orders_admin", "retain")
	newDatabase(t, ns, "orphan", "dbs", "orphan", "nobody", "delete")
	waitHealthy(t, ns, "dbs")

	t.Run("created with owner and extensions", func(t *testing.T) {
		db := waitDatabase(t, ns, "orders", true, "")
		if !slices.Contains(db.Finalizers, "cnpg.io/deleteDatabase") {
			t.Errorf("finalizers = %q", db.Finalizers)
		}
		owner := superQuery[string](t, ns, "dbs", "postgres", "SELECT pg_get_userbyid(datdba)::text FROM pg_database WHERE datname = 'orders'")
		if owner != "orders_admin" {
			t.Errorf("owner = %s", owner)
		}
		exts := superQuery[[]string](t, ns, "dbs", "orders", "SELECT array_agg(extname::text ORDER BY extname) FROM pg_extension")
		if !slices.Contains(exts, "pg_trgm") || !slices.Contains(exts, "uuid-ossp") {
			t.Errorf("extensions = %q", exts)
		}
		waitDatabase(t, ns, "catalog", true, "")
	})
	t.Run("missing owner is reported", func(t *testing.T) {
		// CNPG's words: its wrapping of the server's error, whole.
		waitDatabase(t, ns, "orphan", false, `while creating database "orphan": ERROR: role "nobody" does not exist (SQLSTATE 42704)`)
	})
	t.Run("extension absent drops it", func(t *testing.T) {
		eventually(t, 10*time.Second, "update database", func() error {
			db, err := pg.CNPGV1().Databases(ns).Get(t.Context(), "orders", metav1.GetOptions{})
			if err != nil {
				return err
			}
			db.Spec.Extensions[1].Ensure = cnpgv1.EnsureAbsent
			_, err = pg.CNPGV1().Databases(ns).Update(t.Context(), db, metav1.UpdateOptions{})
			return err
		})
		waitDatabase(t, ns, "orders", true, "")
		if n := superQuery[int64](t, ns, "dbs", "orders", "SELECT count(*) FROM pg_extension WHERE extname = 'uuid-ossp'"); n != 0 {
			t.Error("uuid-ossp still installed")
		}
	})
	t.Run("reclaim delete drops, retain keeps", func(t *testing.T) {
		for _, name := range []string{"orders", "catalog"} {
			if err := pg.CNPGV1().Databases(ns).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
				t.Fatalf("delete %s: %v", name, err)
			}
		}
		for _, name := range []string{"orders", "catalog"} {
			eventually(t, 10*time.Second, name+" object gone", func() error {
				_, err := pg.CNPGV1().Databases(ns).Get(t.Context(), name, metav1.GetOptions{})
				if apierrors.IsNotFound(err) {
					return nil
				}
				return fmt.Errorf("still there: %v", err)
			})
		}
		if dbExists(t, ns, "dbs", "orders") {
			t.Error("orders (reclaim delete) still exists")
		}
		if !dbExists(t, ns, "dbs", "catalog") {
			t.Error("catalog (reclaim retain) was dropped")
		}
	})
}
