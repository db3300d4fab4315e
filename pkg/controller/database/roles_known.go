package database

import (
	"slices"
	"strings"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// knownRoles are every role setpoint may have made for database name of
// db, in a fixed order: the fixed ones (whether or not the spec still
// asks for the read-only role), the roles the spec declares
// (credentialsOf), then extra roles it no longer declares whose removal
// is not finished — listed in the database's status entry, or the role of
// a DatabaseRole this object controls (owned) that belongs to the
// database. What the snapshot reads, and what removal and deletion go
// through.
func knownRoles(db *pgv1.PostgresDatabase, name string, owned []*cnpgv1.DatabaseRole) []string {
	n := namesOf(db, name)
	out := n.Roles()
	add := func(role string) {
		if !slices.Contains(out, role) {
			out = append(out, role)
		}
	}
	for _, d := range db.Spec.Databases {
		if d.Name == name {
			for _, c := range credentialsOf(d, n) {
				add(c.role)
			}
		}
	}
	for _, d := range db.Status.Databases {
		if d.Name == name {
			for _, r := range d.Roles {
				add(r.Name)
			}
		}
	}
	var found []string
	for _, r := range owned {
		if ownsClusterSide(r, db) && databaseOfRole(db, r.Spec.Name) == name {
			found = append(found, r.Spec.Name)
		}
	}
	slices.Sort(found)
	for _, r := range found {
		add(r)
	}
	return out
}

// databaseOfRole is the database of db whose role role is, by its name
// <database>_<name>: the longest database name, of the spec or the
// status, that prefixes it ("" for none).
func databaseOfRole(db *pgv1.PostgresDatabase, role string) string {
	var best string
	consider := func(name string) {
		if strings.HasPrefix(role, name+"_") && len(name) > len(best) {
			best = name
		}
	}
	for _, d := range db.Spec.Databases {
		consider(d.Name)
	}
	for _, d := range db.Status.Databases {
		consider(d.Name)
	}
	return best
}

// roleSuffix is role's name within database n: admin, rw, ro or an extra
// role's name.
func roleSuffix(n names, role string) string { return strings.TrimPrefix(role, n.DB+"_") }

// secretsOf are the Secrets setpoint makes for roles of database n: per
// role its generated credential and its Service Binding Secret (an extra
// role without login has neither, and nothing is found under their
// names). The one list of a database's Secrets: what the snapshot reads,
// and what removal and deletion release or delete.
func secretsOf(n names, roles []string) []string {
	out := make([]string, 0, 2*len(roles))
	for _, r := range roles {
		out = append(out, n.Secret(roleSuffix(n, r)), n.Binding(roleSuffix(n, r)))
	}
	return out
}
