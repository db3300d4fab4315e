package inspect

import (
	"testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// The plugin sees a database's extra roles as the operator makes them:
// a login role with its generated Secret, a group without one; an rw
// entry is only grants.
func TestRolesOfNamesExtraRoles(t *testing.T) {
	t.Parallel()
	got := RolesOf("shop-ledger", pgv1.DatabaseSpec{Name: "ledger", Roles: []pgv1.DatabaseRoleSpec{
		{Name: "rw"}, {Name: "migrator", Login: ptr(true)}, {Name: "reporting"}}})
	want := []Role{
		{Kind: "admin", Name: "ledger_admin", Secret: "shop-ledger-ledger-admin"},
		{Kind: "rw", Name: "ledger_rw", Secret: "shop-ledger-ledger-rw"},
		{Kind: "migrator", Name: "ledger_migrator", Secret: "shop-ledger-ledger-migrator"},
		{Kind: "reporting", Name: "ledger_reporting"},
	}
	if len(got) != len(want) {
		t.Fatalf("RolesOf = %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("role %d = %+v, want %+v", i, got[i], want[i])
		}
	}
}
