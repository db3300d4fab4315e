package database

import (
	"fmt"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// validateNames refuses specs whose children Kubernetes or Postgres would
// refuse (validate), and specs whose children another PostgresDatabase of
// the namespace already names.
//
// Children are named <pgdb>-<database with '_' as '-'> plus a suffix
// (the CNPG Database with none, Secrets -admin and -rw, ConfigMap
// -config). Within one PostgresDatabase the stem is unique (database
// names hold no '-'), and the suffixes never end one another, so the only
// collision is between two PostgresDatabases whose stems are equal:
// PostgresDatabase "a" with database "b_c" and PostgresDatabase "a-b"
// with database "c" both stem "a-b-c". The API server sees one object at a
// time and cannot refuse it; the object created later is refused here,
// terminally, naming the other.
// An extra role's Secret, <stem>-<role>, can still meet another
// PostgresDatabase's name (database "b" role "x_admin" of "a" against
// database "x" of "a-b"): the Secret's ownership check refuses it then
// (SecretConflict), naming the owner.
func (c *Controller) validateNames(db *pgv1.PostgresDatabase) error {
	if err := validate(db); err != nil {
		return err
	}
	var others []*pgv1.PostgresDatabase
	for _, d := range db.Spec.Databases {
		objs, err := c.databaseIndex.ByIndex(informers.ByChildStem, db.Namespace+"/"+childStem(db.Name, d.Name))
		if err != nil {
			return fmt.Errorf("look up PostgresDatabases by child names: %w", err)
		}
		for _, o := range objs {
			if other, ok := o.(*pgv1.PostgresDatabase); ok {
				others = append(others, other)
			}
		}
	}
	return nameCollision(db, others)
}

// childStem is the common start of a database's children's names: the
// CNPG Database's name, which the ByChildStem index keys on too.
func childStem(pgdb, database string) string {
	return naming.Database(pgdb, database).Stem
}

func nameCollision(db *pgv1.PostgresDatabase, others []*pgv1.PostgresDatabase) error {
	for _, d := range db.Spec.Databases {
		stem := childStem(db.Name, d.Name)
		for _, o := range others {
			if o.UID == db.UID || !before(o, db) {
				continue
			}
			for _, od := range o.Spec.Databases {
				if childStem(o.Name, od.Name) == stem {
					return fmt.Errorf("database %q would name its objects %s (CNPG Database), %s-admin and %s-rw (Secrets), %s-config (ConfigMap), which PostgresDatabase %q uses for its database %q: rename the database or the PostgresDatabase",
						d.Name, stem, stem, stem, stem, o.Name, od.Name)
				}
			}
		}
	}
	return nil
}

// before reports whether a came first: the older object keeps the names.
func before(a, b *pgv1.PostgresDatabase) bool {
	if !a.CreationTimestamp.Equal(&b.CreationTimestamp) {
		return a.CreationTimestamp.Before(&b.CreationTimestamp)
	}
	return a.Name < b.Name
}
