package database

import (
	"slices"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/roleprivilege"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// Each attribute of a role that bears privilege, edited on our DatabaseRole
// by someone else, is set back by the next pass: an apply of our fields
// (or, for what an apply cannot remove, a guarded JSON patch), a Warning
// Event naming the field, and RolesReady says so until CNPG applied the
// role again. Then the database is Ready with an unprivileged role.
func TestRolePrivilegesEditedByHandAreReverted(t *testing.T) {
	t.Parallel()
	until := metav1.NewTime(time.Date(2030, 1, 1, 0, 0, 0, 0, time.UTC))
	for _, tc := range []struct {
		field string
		edit  func(*cnpgv1.DatabaseRoleSpec)
	}{
		{"superuser", func(s *cnpgv1.DatabaseRoleSpec) { s.Superuser = true }},
		{"createdb", func(s *cnpgv1.DatabaseRoleSpec) { s.CreateDB = true }},
		{"createrole", func(s *cnpgv1.DatabaseRoleSpec) { s.CreateRole = true }},
		{"replication", func(s *cnpgv1.DatabaseRoleSpec) { s.Replication = true }},
		{"bypassrls", func(s *cnpgv1.DatabaseRoleSpec) { s.BypassRLS = true }},
		{"inherit", func(s *cnpgv1.DatabaseRoleSpec) { s.Inherit = ptr.To(false) }},
		{"inRoles", func(s *cnpgv1.DatabaseRoleSpec) {
			s.InRoles = []string{"pg_read_server_files", "pg_execute_server_program"}
		}},
		{"connectionLimit", func(s *cnpgv1.DatabaseRoleSpec) { s.ConnectionLimit = ptr.To[int64](3) }},
		{"validUntil", func(s *cnpgv1.DatabaseRoleSpec) { s.ValidUntil = &until }},
	} {
		t.Run(tc.field, func(t *testing.T) {
			t.Parallel()
			f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}))
			r := f.role("pg.orders-rw")
			tc.edit(&r.Spec)
			if _, err := f.pg.CNPGV1().DatabaseRoles(ns).Update(t.Context(), r, metav1.UpdateOptions{FieldManager: "kubectl-edit"}); err != nil {
				t.Fatal(err)
			}
			if _, err := f.syncReported("shop"); err != nil {
				t.Fatal(err)
			}
			got := f.role("pg.orders-rw")
			if d := roleprivilege.Drift(got, nil); len(d) != 0 {
				t.Errorf("after the pass DatabaseRole still has %v: %+v", d, got.Spec)
			}
			want := "Warning RolePrivilegesReverted DatabaseRole pg.orders-rw of role orders_rw was edited to change " + tc.field + "; setpoint set them back"
			if ev := f.events(); !slices.Contains(ev, want) {
				t.Errorf("events = %q, want %q", ev, want)
			}
			db := f.db("shop")
			if c := cond(t, db, pgv1.ConditionRolesReady); c.Reason != pgv1.ReasonRolePrivilegesReverted || !strings.Contains(c.Message, tc.field) {
				t.Errorf("RolesReady = %+v", c)
			}
			f.applyRoles()
			if _, err := f.syncReported("shop"); err != nil {
				t.Fatal(err)
			}
			if db := f.db("shop"); db.Status.Phase != pgv1.PhaseReady {
				t.Errorf("phase %s once CNPG applied the role again", db.Status.Phase)
			}
			if ev := f.events(); slices.ContainsFunc(ev, func(e string) bool { return strings.Contains(e, "RolePrivilegesReverted") }) {
				t.Errorf("events after the repair = %q, want no second report", ev)
			}
		})
	}
}

// A certificate role keeps exactly its one membership: a group added
// beside it is taken back by the apply, the certificate group stays.
func TestCertRoleKeepsOnlyTheCertificateGroup(t *testing.T) {
	t.Parallel()
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}))
	r := f.role("pg.orders-admin")
	w := wantOf(r, cnpgv1.DatabaseRoleReclaimRetain)
	w.cert = true
	r.Spec.InRoles = []string{naming.CertAuthGroup, "pg_write_server_files"}
	if d := roleprivilege.Drift(r, w.inRoles()); !slices.Equal(d, []string{"inRoles"}) {
		t.Errorf("drift = %v, want [inRoles]", d)
	}
	r.Spec.InRoles = []string{naming.CertAuthGroup}
	if d := roleprivilege.Drift(r, w.inRoles()); len(d) != 0 {
		t.Errorf("drift of the certificate group alone = %v", d)
	}
	if patch, err := roleprivilege.ScrubPatch(r, w.inRoles()); err != nil || patch != nil {
		t.Errorf("scrub of a certificate role = %s %v, want none: the apply sets its list", patch, err)
	}
}

// A DatabaseRole deleted by hand (reclaim retain while the database lives,
// so CNPG keeps the role) comes back with the same password Secret.
func TestDatabaseRoleDeletedByHandComesBack(t *testing.T) {
	t.Parallel()
	f := readyFixture(t, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}))
	before := f.role("pg.orders-admin")
	if before.Spec.DatabaseRoleReclaimPolicy != cnpgv1.DatabaseRoleReclaimRetain {
		t.Fatalf("reclaim %q while the database lives, want retain", before.Spec.DatabaseRoleReclaimPolicy)
	}
	if err := f.pg.CNPGV1().DatabaseRoles(ns).Delete(t.Context(), "pg.orders-admin", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	f.applyRoles() // CNPG lets it go, and keeps the role: reclaim retain
	if _, ok := f.sql.role("orders_admin"); !ok {
		t.Fatal("CNPG dropped the role")
	}
	if _, err := f.syncReported("shop"); err != nil {
		t.Fatal(err)
	}
	again := f.role("pg.orders-admin")
	if again.UID == before.UID || again.Spec.PasswordSecret == nil || again.Spec.PasswordSecret.Name != before.Spec.PasswordSecret.Name {
		t.Errorf("DatabaseRole again = %+v, want a new object with Secret %s", again.Spec, before.Spec.PasswordSecret.Name)
	}
	f.applyRoles()
	if _, err := f.syncReported("shop"); err != nil {
		t.Fatal(err)
	}
	if db := f.db("shop"); db.Status.Phase != pgv1.PhaseReady {
		t.Errorf("phase %s after the role came back", db.Status.Phase)
	}
}
