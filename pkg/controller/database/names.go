package database

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// Finalizer keeps a PostgresDatabase until each database's deletionPolicy
// has run (ownership.DatabaseFinalizer).
const Finalizer = ownership.DatabaseFinalizer

// fieldManager is the field manager of every write.
const fieldManager = ownership.FieldManager

// Labels and annotations of our children beyond the shared ones.
const (
	// policyAnnotation on the connection ConfigMap remembers a database's
	// deletionPolicy: once the database leaves the spec, it is the only
	// record of what its removal should do.
	policyAnnotation = "postgres.setpoint.dev/deletion-policy"
)

// names are the deterministic names of one database's objects.
type names = naming.DatabaseNames

func namesOf(pgdb, db string) names { return naming.Database(pgdb, db) }

// maxRoleName is Postgres's identifier limit (NAMEDATALEN - 1).
const maxRoleName = 63

// validate rejects specs whose derived names Kubernetes or Postgres would
// refuse. The CRD already bounds database names; this covers what depends
// on the PostgresDatabase's own name, which the CRD cannot see.
func validate(db *pgv1.PostgresDatabase) error {
	if errs := validation.IsValidLabelValue(db.Name); len(errs) > 0 {
		return fmt.Errorf("PostgresDatabase name %q cannot be a label value: %s", db.Name, strings.Join(errs, "; "))
	}
	for _, d := range db.Spec.Databases {
		n := namesOf(db.Name, d.Name)
		if len(n.AdminRole) > maxRoleName {
			return fmt.Errorf("database %q: role name %q exceeds %d bytes", d.Name, n.AdminRole, maxRoleName)
		}
		for _, obj := range []string{n.CNPG, n.AdminSecret, n.RWSecret, n.ROSecret, n.ConfigMap} {
			if errs := validation.IsDNS1123Subdomain(obj); len(errs) > 0 {
				return fmt.Errorf("database %q: object name %q is invalid: %s", d.Name, obj, strings.Join(errs, "; "))
			}
		}
	}
	return nil
}
