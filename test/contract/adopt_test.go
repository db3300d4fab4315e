package contract_test

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// spec.adoptFrom is set at creation or never, cannot change, names another
// object, and is an object name.
func TestAdoptFromRules(t *testing.T) {
	ns := newNamespace(t)
	self := validDatabase(ns)
	self.Spec.AdoptFrom = self.Name
	_, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), self, metav1.CreateOptions{})
	expectRefused(t, err, "spec.adoptFrom must differ from metadata.name")

	bad := validDatabase(ns)
	bad.Spec.AdoptFrom = "App_1"
	_, err = pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), bad, metav1.CreateOptions{})
	expectRefused(t, err, "spec.adoptFrom in body should match")

	adopter := validDatabase(ns)
	adopter.Name = "copy-app"
	adopter.Spec.AdoptFrom = "shop-app"
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), adopter, metav1.CreateOptions{}); err != nil {
		t.Fatalf("valid adoptFrom refused: %v", err)
	}
	plain := validDatabase(ns)
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), plain, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name, object string
		edit         func(*pgv1.PostgresDatabase)
		want         string
	}{
		{"adoptFrom edited", "copy-app", func(d *pgv1.PostgresDatabase) { d.Spec.AdoptFrom = "other" }, `spec.adoptFrom: Invalid value: "other": adoptFrom is immutable`},
		{"adoptFrom removed", "copy-app", func(d *pgv1.PostgresDatabase) { d.Spec.AdoptFrom = "" }, "spec.adoptFrom: Invalid value: adoptFrom can only be set when the PostgresDatabase is created"},
		{"adoptFrom added", "shop-app", func(d *pgv1.PostgresDatabase) { d.Spec.AdoptFrom = "other" }, "spec.adoptFrom: Invalid value: adoptFrom can only be set when the PostgresDatabase is created"},
	} {
		t.Run(c.name, func(t *testing.T) {
			cur, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), c.object, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			c.edit(cur)
			_, err = pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), cur, metav1.UpdateOptions{})
			expectRefused(t, err, c.want)
		})
	}
}
