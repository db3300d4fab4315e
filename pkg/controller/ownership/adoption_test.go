package ownership

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func adopter(name, adoptFrom string) *pgv1.PostgresDatabase {
	return &pgv1.PostgresDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name)},
		Spec:       pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: "copy"}, AdoptFrom: adoptFrom},
	}
}

// Exactly two markers are accepted: the object's own, and with adoptFrom
// the named object's, in the same namespace, while that object does not
// use the cluster. Anything else — near misses included — is refused.
func TestMayTakeOver(t *testing.T) {
	for _, tc := range []struct {
		name       string
		db         *pgv1.PostgresDatabase
		comment    string
		sourceHere bool
		want       bool
		adopts     bool
	}{
		{"own marker", adopter("app", ""), PostgresMarker("ns", "app"), false, true, false},
		{"own marker with adoptFrom", adopter("app2", "app"), PostgresMarker("ns", "app2"), false, true, false},
		{"adoptFrom's marker", adopter("app2", "app"), PostgresMarker("ns", "app"), false, true, true},
		{"adoptFrom's marker, source on this cluster", adopter("app2", "app"), PostgresMarker("ns", "app"), true, false, false},
		{"another object's marker", adopter("app2", "app"), PostgresMarker("ns", "other"), false, false, false},
		{"adoptFrom's name in another namespace", adopter("app2", "app"), PostgresMarker("other", "app"), false, false, false},
		{"no adoptFrom, another object's marker", adopter("app2", ""), PostgresMarker("ns", "app"), false, false, false},
		{"no comment", adopter("app2", "app"), "", false, false, false},
		{"foreign comment", adopter("app2", "app"), "created by hand", false, false, false},
		{"marker with a suffix", adopter("app2", "app"), PostgresMarker("ns", "app") + " ", false, false, false},
		{"marker of a longer name", adopter("app2", "app"), PostgresMarker("ns", "app-x"), false, false, false},
		{"marker prefix only", adopter("app2", "app"), PostgresMarker("ns", ""), false, false, false},
		{"upper case marker", adopter("app2", "app"), strings.ToUpper(PostgresMarker("ns", "app")), false, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MayTakeOver(tc.db, tc.comment, tc.sourceHere); got != tc.want {
				t.Errorf("MayTakeOver = %v, want %v", got, tc.want)
			}
			if got := Adopts(tc.db, tc.comment, tc.sourceHere); got != tc.adopts {
				t.Errorf("Adopts = %v, want %v", got, tc.adopts)
			}
		})
	}
}

// The source counts as here only when it is another object of the same
// namespace among the cluster's PostgresDatabases.
func TestAdoptionSourceHere(t *testing.T) {
	db := adopter("app2", "app")
	src := adopter("app", "")
	elsewhere := adopter("app", "")
	elsewhere.Namespace = "other"
	for _, tc := range []struct {
		name string
		db   *pgv1.PostgresDatabase
		dbs  []*pgv1.PostgresDatabase
		want bool
	}{
		{"source among the cluster's", db, []*pgv1.PostgresDatabase{db, src}, true},
		{"source absent", db, []*pgv1.PostgresDatabase{db}, false},
		{"same name in another namespace", db, []*pgv1.PostgresDatabase{db, elsewhere}, false},
		{"no adoptFrom", adopter("app2", ""), []*pgv1.PostgresDatabase{src}, false},
	} {
		if got := AdoptionSourceHere(tc.db, tc.dbs); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}

// A refusal says whose the object is and what would let this one take it.
func TestRefusedMessage(t *testing.T) {
	for _, tc := range []struct {
		name       string
		db         *pgv1.PostgresDatabase
		comment    string
		sourceHere bool
		want       []string
	}{
		{"unmarked", adopter("app2", "app"), "", false,
			[]string{"role orders_rw exists in Postgres and was not created by setpoint", "drop or rename the role"}},
		{"marked, no adoptFrom", adopter("app2", ""), PostgresMarker("ns", "app"), false,
			[]string{"created by setpoint for PostgresDatabase ns/app", "spec.adoptFrom: app"}},
		{"marked for another object", adopter("app2", "app"), PostgresMarker("ns", "other"), false,
			[]string{"created by setpoint for PostgresDatabase ns/other", "spec.adoptFrom takes over only what setpoint marked for PostgresDatabase ns/app"}},
		{"source still here", adopter("app2", "app"), PostgresMarker("ns", "app"), true,
			[]string{`while PostgresDatabase "app" uses this cluster`}},
		{"another namespace", adopter("app2", "app"), PostgresMarker("other", "app"), false,
			[]string{"PostgresDatabase other/app", "only that PostgresDatabase may adopt it"}},
	} {
		msg := RefusedMessage("role", "orders_rw", tc.comment, tc.db, tc.sourceHere)
		for _, w := range tc.want {
			if !strings.Contains(msg, w) {
				t.Errorf("%s: %q lacks %q", tc.name, msg, w)
			}
		}
	}
}
