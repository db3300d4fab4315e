package ownership

import (
	"fmt"
	"strings"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Taking over what Postgres already has. A role or database that exists
// before setpoint manages it for a PostgresDatabase is judged by the
// comment Postgres keeps on it (PostgresMarker), and by nothing else:
//
//   - the marker of this very object: setpoint created it for this object
//     and a Retain deletion kept it;
//   - with spec.adoptFrom, the marker of the object it names, in the same
//     namespace: a cluster restored from that object's backups, or its
//     Retain deletion. Never while that object itself uses the cluster
//     (it still owns them);
//   - anything else — another object's marker, another comment, none — is
//     refused.
//
// The comparison is exact: a marker is what setpoint wrote, character for
// character.

// MayTakeOver reports whether PostgresDatabase db may manage a role or
// database whose comment in Postgres is comment. sourceHere reports whether
// the PostgresDatabase that db's spec.adoptFrom names exists and uses the
// same cluster as db.
func MayTakeOver(db *pgv1.PostgresDatabase, comment string, sourceHere bool) bool {
	if comment == PostgresMarker(db.Namespace, db.Name) {
		return true
	}
	return Adopts(db, comment, sourceHere)
}

// Adopts reports whether comment is the marker of the object db's
// spec.adoptFrom names, and db may take it over (see MayTakeOver).
func Adopts(db *pgv1.PostgresDatabase, comment string, sourceHere bool) bool {
	from := db.Spec.AdoptFrom
	return from != "" && from != db.Name && !sourceHere && comment == PostgresMarker(db.Namespace, from)
}

// AdoptionSourceHere reports whether the PostgresDatabase db's
// spec.adoptFrom names is among dbs, the PostgresDatabases of db's cluster.
func AdoptionSourceHere(db *pgv1.PostgresDatabase, dbs []*pgv1.PostgresDatabase) bool {
	if db.Spec.AdoptFrom == "" {
		return false
	}
	for _, o := range dbs {
		if o.Namespace == db.Namespace && o.Name == db.Spec.AdoptFrom && o.UID != db.UID {
			return true
		}
	}
	return false
}

// RefusedMessage explains why db may not manage the role or database
// (kind) called name that Postgres has with comment, and what would let it.
func RefusedMessage(kind, name, comment string, db *pgv1.PostgresDatabase, sourceHere bool) string {
	owner, marked := MarkerOwner(comment)
	if !marked {
		return fmt.Sprintf("%s %s exists in Postgres and was not created by setpoint; setpoint leaves it untouched: use another database name, or drop or rename the %s", kind, name, kind)
	}
	msg := fmt.Sprintf("%s %s exists in Postgres and was created by setpoint for PostgresDatabase %s (kept by a Retain deletion, or restored from a backup)", kind, name, owner)
	ns, src, _ := strings.Cut(owner, "/")
	switch from := db.Spec.AdoptFrom; {
	case ns != db.Namespace:
		return msg + "; only that PostgresDatabase may adopt it"
	case from == src && sourceHere:
		return msg + fmt.Sprintf("; spec.adoptFrom cannot take it over while PostgresDatabase %q uses this cluster", src)
	case from != "":
		return msg + fmt.Sprintf("; spec.adoptFrom takes over only what setpoint marked for PostgresDatabase %s/%s", db.Namespace, from)
	}
	return msg + fmt.Sprintf("; only that PostgresDatabase may adopt it, or a new PostgresDatabase created with spec.adoptFrom: %s", src)
}
