package cluster

import (
	"regexp"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// roleIntent is one role a PostgresDatabase asks its cluster for.
type roleIntent struct {
	Name   string
	Ensure pgv1.RoleEnsure
	// Secret holds the password; empty for an absent role.
	Secret string
}

// databaseName is the CRD's pattern for database names: a status entry
// that does not match it names no role setpoint would ever create.
var databaseName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// intentOf derives the roles db asks for from its spec, never from what
// its status claims: <db>_admin and <db>_rw of every database in the spec,
// with the password Secrets the spec names or implies. The status only
// says how far the database controller got:
//   - a role is asked for once the controller has validated its Secrets
//     (the status entry names exactly the Secrets the spec implies);
//   - a role is asked to be absent only when the status marks it so (a
//     Delete in progress, after its database is dropped) AND owned says
//     the cluster already gave that role to this very object — so a
//     status write can drop nothing but the writer's own roles.
func intentOf(db *pgv1.PostgresDatabase, owned func(role string) bool) []roleIntent {
	var out []roleIntent
	inSpec := map[string]pgv1.DatabaseSpec{}
	for _, d := range db.Spec.Databases {
		inSpec[d.Name] = d
	}
	for _, e := range db.Status.Databases {
		if !databaseName.MatchString(e.Name) {
			continue
		}
		n := controller.NamesOf(db.Name, e.Name)
		if absent := absentRoles(e, n, owned); len(absent) > 0 {
			out = append(out, absent...)
			continue
		}
		d, ok := inSpec[e.Name]
		if !ok {
			continue // left the spec: Retain leaves its roles unmanaged
		}
		admin, rw := secretsOf(d, n)
		if e.AdminSecretRef == nil || e.AdminSecretRef.Name != admin || e.RWSecretRef == nil || e.RWSecretRef.Name != rw {
			continue // Secrets not validated yet
		}
		out = append(out,
			roleIntent{Name: n.AdminRole, Ensure: pgv1.RoleEnsurePresent, Secret: admin},
			roleIntent{Name: n.RWRole, Ensure: pgv1.RoleEnsurePresent, Secret: rw})
	}
	return out
}

// absentRoles are the roles of entry e that its status marks absent and
// that the cluster gave to this object.
func absentRoles(e pgv1.DatabaseStatus, n controller.DatabaseNames, owned func(string) bool) []roleIntent {
	var out []roleIntent
	for _, r := range e.Roles {
		if r.Ensure == pgv1.RoleEnsureAbsent && (r.Name == n.AdminRole || r.Name == n.RWRole) && owned(r.Name) {
			out = append(out, roleIntent{Name: r.Name, Ensure: pgv1.RoleEnsureAbsent})
		}
	}
	return out
}

// secretsOf are the password Secrets of a database's two roles: the
// user's own when the spec names them, else the generated ones.
func secretsOf(d pgv1.DatabaseSpec, n controller.DatabaseNames) (admin, rw string) {
	admin, rw = n.AdminSecret, n.RWSecret
	if pc := d.PasswordConfig; pc != nil {
		if pc.AdminSecretRef != nil {
			admin = pc.AdminSecretRef.Name
		}
		if pc.RWSecretRef != nil {
			rw = pc.RWSecretRef.Name
		}
	}
	return admin, rw
}
