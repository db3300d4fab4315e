package informers

import (
	"slices"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

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

// The three roles of a database share one index key; a lookup returns
// exactly the DatabaseRoles of the role asked for, on that cluster, ours
// or not.
func TestRolesOnCluster(t *testing.T) {
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{ByRoleOnCluster: indexByRoleOnCluster})
	role := func(object, cluster, name string) {
		r := &cnpgv1.DatabaseRole{ObjectMeta: metav1.ObjectMeta{Name: object, Namespace: "ns"},
			Spec: cnpgv1.DatabaseRoleSpec{Cluster: cnpgv1.LocalObjectReference{Name: cluster}, Name: name}}
		if err := idx.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	role("orders-admin", "main", "orders_admin")
	role("orders-rw", "main", "orders_rw")
	role("orders-ro", "main", "orders_ro")
	role("theirs", "main", "orders_rw") // a rival of one role
	role("plain", "main", "orders")     // a role named as the stem
	role("other-cluster", "other", "orders_rw")
	role("orders-rw-x", "main", "orders_rw_x")
	if keys := idx.ListIndexFuncValues(ByRoleOnCluster); len(keys) != 3 {
		t.Errorf("index keys %v, want 3: one database's roles share one", keys)
	}
	for name, want := range map[string][]string{
		"orders_rw":    {"orders-rw", "theirs"},
		"orders_admin": {"orders-admin"},
		"orders":       {"plain"},
		"orders_rw_x":  {"orders-rw-x"},
		"nobody_ro":    nil,
	} {
		got, err := RolesOnCluster(idx, "ns", "main", name)
		if err != nil {
			t.Fatal(err)
		}
		var objects []string
		for _, r := range got {
			objects = append(objects, r.Name)
		}
		slices.Sort(objects)
		if !slices.Equal(objects, want) {
			t.Errorf("%s: %v, want %v", name, objects, want)
		}
	}
}
