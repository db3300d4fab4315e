package caches

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// Two PostgresDatabases whose databases' children would share names
// ("a" with "b_c", "a-b" with "c") land on one index key.
func TestChildStemIndexFindsCollidingObjects(t *testing.T) {
	db := func(name string, dbs ...string) *pgv1.PostgresDatabase {
		d := &pgv1.PostgresDatabase{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}}
		for _, n := range dbs {
			d.Spec.Databases = append(d.Spec.Databases, pgv1.DatabaseSpec{Name: n})
		}
		return d
	}
	a, _ := indexByChildStem(db("a", "b_c", "x"))
	b, _ := indexByChildStem(db("a-b", "c"))
	if !slices.Equal(a, []string{"ns/a-b-c", "ns/a-x"}) || !slices.Equal(b, []string{"ns/a-b-c"}) {
		t.Fatalf("stems %v and %v", a, b)
	}
}

func TestDatabaseLabelIndex(t *testing.T) {
	d := &cnpgv1.Database{ObjectMeta: metav1.ObjectMeta{Name: "shop-orders", Namespace: "ns",
		Labels: ownership.ManagedLabels(ownership.DatabaseLabel, "shop")}}
	if got, _ := indexByDatabaseLabel(d); !slices.Equal(got, []string{"ns/shop"}) {
		t.Fatalf("index = %v", got)
	}
	if got, _ := indexByDatabaseLabel(&cnpgv1.Database{ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: "ns"}}); len(got) != 0 {
		t.Fatalf("an unlabelled Database indexed as %v", got)
	}
}
