package database

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Finalizer keeps a PostgresDatabase until each database's deletionPolicy
// has run.
const Finalizer = "postgres.setpoint.dev/database"

// fieldManager is the server-side apply field manager of every write.
const fieldManager = "setpoint"

// Labels and annotations of our children beyond the shared ones.
const (
	// retainedLabel marks a child that a Retain deletion released, so that a
	// later PostgresDatabase of the same name may adopt it.
	retainedLabel = "postgres.setpoint.dev/retained"
	// policyAnnotation on the connection ConfigMap remembers a database's
	// deletionPolicy: once the database leaves the spec, it is the only
	// record of what its removal should do.
	policyAnnotation = "postgres.setpoint.dev/deletion-policy"
)

// Name suffixes of a database's children.
const (
	adminSuffix     = "-admin"
	rwSuffix        = "-rw"
	configMapSuffix = "-config"
	caSuffix        = "-ca"
)

// names are the deterministic names of one database's objects. Kubernetes
// object names cannot contain '_', which database names may, so the
// database part of an object name has every '_' replaced by '-':
// PostgresDatabase "shop", database "order_items" → Secret
// "shop-order-items-admin". Database names cannot contain '-' (the CRD's
// pattern), so the mapping is injective within one PostgresDatabase.
type names struct {
	db          string // the Postgres database name
	adminRole   string
	rwRole      string
	cnpg        string // the CNPG Database
	adminSecret string
	rwSecret    string
	configMap   string
}

func namesOf(pgdb, db string) names {
	base := pgdb + "-" + strings.ReplaceAll(db, "_", "-")
	return names{
		db:          db,
		adminRole:   db + "_admin",
		rwRole:      db + "_rw",
		cnpg:        base,
		adminSecret: base + adminSuffix,
		rwSecret:    base + rwSuffix,
		configMap:   base + configMapSuffix,
	}
}

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
		if len(n.adminRole) > maxRoleName {
			return fmt.Errorf("database %q: role name %q exceeds %d bytes", d.Name, n.adminRole, maxRoleName)
		}
		for _, obj := range []string{n.cnpg, n.adminSecret, n.rwSecret, n.configMap} {
			if errs := validation.IsDNS1123Subdomain(obj); len(errs) > 0 {
				return fmt.Errorf("database %q: object name %q is invalid: %s", d.Name, obj, strings.Join(errs, "; "))
			}
		}
	}
	return nil
}
