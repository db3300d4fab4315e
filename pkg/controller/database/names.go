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

// maxRoleName is Postgres's identifier limit (NAMEDATALEN - 1).
const maxRoleName = 63

// validate rejects specs whose derived names Kubernetes or Postgres would
// refuse. The CRD already bounds database names; this covers what depends
// on the PostgresDatabase's own name, which the CRD cannot see.
func validate(db *pgv1.PostgresDatabase) error {
	if errs := validation.IsValidLabelValue(db.Name); len(errs) > 0 {
		return fmt.Errorf("PostgresDatabase name %q cannot be a label value: %s", db.Name, strings.Join(errs, "; "))
	}
	// Role names must be unique across databases: database a's role b_rw
	// and database a_b's rw are both a_b_rw, one role and one Secret.
	roleOf := map[string]string{}
	// A role's binding Secret (<Secret>-binding) is another role's Secret
	// when that role is named <role>_binding: one Secret for two uses.
	secretOf := map[string]string{}
	for _, d := range db.Spec.Databases {
		n := namesOf(db, d.Name)
		if crossNamespace(db) && certAuth(d) {
			// CloudNativePG issues the client certificate into a Secret
			// of the cluster's namespace, which the app cannot read.
			return fmt.Errorf("database %q: authentication certificate is not available on a cluster of another namespace (%s); use password", d.Name, clusterNS(db))
		}
		objects := []string{n.CNPG, n.ConfigMap}
		roles := n.Roles()
		for _, c := range credentialsOf(d, n) {
			if c.extra != nil {
				roles = append(roles, c.role)
				objects = append(objects, naming.RoleObject(db.Spec.ClusterRef.Name, c.role))
			}
		}
		for _, r := range roles {
			for name, what := range map[string]string{n.Secret(roleSuffix(n, r)): "the Secret", n.Binding(roleSuffix(n, r)): "the binding Secret"} {
				what += " of role " + r
				if other, ok := secretOf[name]; ok && other != what {
					return fmt.Errorf("database %q: Secret %q would be both %s and %s: rename the role", d.Name, name, other, what)
				}
				secretOf[name] = what
				objects = append(objects, name)
			}
		}
		for _, r := range roles {
			// A prefix (a cluster of another namespace) lengthens every
			// role name past what the CRD could check.
			if len(r) > maxRoleName {
				return fmt.Errorf("database %q: role name %q exceeds %d bytes (with the prefix %q of namespace %s on a cluster of namespace %s): shorten the database or role name", d.Name, r, maxRoleName, naming.TenantPrefix(db.Namespace, clusterNS(db)), db.Namespace, clusterNS(db))
			}
			if other, ok := roleOf[r]; ok && other != d.Name {
				return fmt.Errorf("databases %q and %q both have role %s: rename one of the roles", other, d.Name, r)
			}
			roleOf[r] = d.Name
		}
		for _, obj := range objects {
			if errs := validation.IsDNS1123Subdomain(obj); len(errs) > 0 {
				return fmt.Errorf("database %q: object name %q is invalid: %s", d.Name, obj, strings.Join(errs, "; "))
			}
		}
	}
	return nil
}
