package cluster

import (
	"regexp"
	"slices"

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
// and <db>_ro when its readOnlyRole is set, with the password Secrets the
// spec names or implies. Whether the database controller got that far
// comes from its status or, for generated Secrets, from the Secrets
// themselves:
//   - a role is asked for once its Secrets are in place: the status entry
//     names exactly the Secrets the spec implies (validated there), or the
//     spec implies generated Secrets and placed finds each of them in the
//     cache, controlled by db (created by its controller). The second way
//     lets a new database claim its roles before its first status write,
//     so that write can wait for news (status_defer.go in the database
//     controller);
//   - a role is asked to be absent only when the status marks it so (a
//     Delete in progress, after its database is dropped, or a read-only
//     role whose flag was removed) AND owned says the cluster already gave
//     that role to this very object — so a status write can drop nothing
//     but the writer's own roles;
//   - a role the cluster gave to this object that the spec no longer asks
//     for (a read-only role whose flag was removed, a database that left
//     the spec) stays asked for, with its Secret, while the status still
//     lists it present: the database controller has not run the deletion
//     policy yet. Releasing it on the spec change alone would let a Delete
//     find the role no longer its own and leave it in Postgres. The status
//     can only prolong the writer's own claims, never take a role.
func intentOf(db *pgv1.PostgresDatabase, owned func(role string) bool, placed func(secret string) bool) []roleIntent {
	var out []roleIntent
	inSpec := map[string]pgv1.DatabaseSpec{}
	for _, d := range db.Spec.Databases {
		inSpec[d.Name] = d
	}
	for _, e := range entriesOf(db) {
		if !databaseName.MatchString(e.Name) {
			continue
		}
		n := controller.NamesOf(db.Name, e.Name)
		absent := absentRoles(e, n, owned)
		out = append(out, absent...)
		if slices.ContainsFunc(absent, func(a roleIntent) bool { return a.Name != n.RORole }) {
			continue // the database is being removed: nothing is asked present
		}
		var asked []roleIntent
		if d, ok := inSpec[e.Name]; ok {
			asked = presentRoles(d, e, n, placed)
		}
		asked = append(asked, keptRoles(e, n, owned, asked)...)
		for _, r := range asked {
			if !slices.ContainsFunc(absent, func(a roleIntent) bool { return a.Name == r.Name }) {
				out = append(out, r)
			}
		}
	}
	return out
}

// keptRoles are the roles of entry e, not in asked, that its status lists
// present and that the cluster gave to this object (see intentOf). They
// are released once the database controller takes them off the entry
// (Retain) or marks them absent (Delete).
func keptRoles(e pgv1.DatabaseStatus, n controller.DatabaseNames, owned func(string) bool, asked []roleIntent) []roleIntent {
	var out []roleIntent
	for _, r := range e.Roles {
		if r.Ensure != pgv1.RoleEnsurePresent || r.PasswordSecretRef == nil || r.PasswordSecretRef.Name == "" ||
			!slices.Contains(n.Roles(), r.Name) || !owned(r.Name) ||
			slices.ContainsFunc(asked, func(a roleIntent) bool { return a.Name == r.Name }) {
			continue
		}
		out = append(out, roleIntent{Name: r.Name, Ensure: pgv1.RoleEnsurePresent, Secret: r.PasswordSecretRef.Name})
	}
	return out
}

// entriesOf are db's status entries, then an empty one for each database
// of the spec the status does not list yet.
func entriesOf(db *pgv1.PostgresDatabase) []pgv1.DatabaseStatus {
	out := slices.Clone(db.Status.Databases)
	for _, d := range db.Spec.Databases {
		if !slices.ContainsFunc(out, func(e pgv1.DatabaseStatus) bool { return e.Name == d.Name }) {
			out = append(out, pgv1.DatabaseStatus{Name: d.Name})
		}
	}
	return out
}

// presentRoles are the roles of database d whose Secrets are in place
// (see intentOf).
func presentRoles(d pgv1.DatabaseSpec, e pgv1.DatabaseStatus, n controller.DatabaseNames, placed func(string) bool) []roleIntent {
	admin, rw, ro := secretsOf(d, n)
	inPlace := func(ref *pgv1.LocalObjectReference, name, generated string) bool {
		return refIs(ref, name) || name == generated && placed(name)
	}
	if !inPlace(e.AdminSecretRef, admin, n.AdminSecret) || !inPlace(e.RWSecretRef, rw, n.RWSecret) {
		return nil // Secrets not in place yet
	}
	out := []roleIntent{
		{Name: n.AdminRole, Ensure: pgv1.RoleEnsurePresent, Secret: admin},
		{Name: n.RWRole, Ensure: pgv1.RoleEnsurePresent, Secret: rw},
	}
	if d.ReadOnlyRole && inPlace(e.ROSecretRef, ro, n.ROSecret) {
		out = append(out, roleIntent{Name: n.RORole, Ensure: pgv1.RoleEnsurePresent, Secret: ro})
	}
	return out
}

func refIs(ref *pgv1.LocalObjectReference, name string) bool {
	return ref != nil && ref.Name == name
}

// absentRoles are the roles of entry e that its status marks absent and
// that the cluster gave to this object.
func absentRoles(e pgv1.DatabaseStatus, n controller.DatabaseNames, owned func(string) bool) []roleIntent {
	var out []roleIntent
	for _, r := range e.Roles {
		if r.Ensure == pgv1.RoleEnsureAbsent && slices.Contains(n.Roles(), r.Name) && owned(r.Name) {
			out = append(out, roleIntent{Name: r.Name, Ensure: pgv1.RoleEnsureAbsent})
		}
	}
	return out
}

// secretsOf are the password Secrets of a database's roles: the user's
// own when the spec names them, else the generated ones.
func secretsOf(d pgv1.DatabaseSpec, n controller.DatabaseNames) (admin, rw, ro string) {
	admin, rw, ro = n.AdminSecret, n.RWSecret, n.ROSecret
	if pc := d.PasswordConfig; pc != nil {
		if pc.AdminSecretRef != nil {
			admin = pc.AdminSecretRef.Name
		}
		if pc.RWSecretRef != nil {
			rw = pc.RWSecretRef.Name
		}
		if pc.ROSecretRef != nil {
			ro = pc.ROSecretRef.Name
		}
	}
	return admin, rw, ro
}
