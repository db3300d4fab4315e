package contract_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// privilegeModel is a database with the privilege model: a billing
// schema owned by a migration role, an app role that reads and writes, a
// reporting role that reads, and the fixed roles' grants on the new schema.
func privilegeModel() pgv1.DatabaseSpec {
	return pgv1.DatabaseSpec{
		Name:         "shop",
		ReadOnlyRole: true,
		Schemas:      []pgv1.SchemaSpec{{Name: "billing", Owner: "migrator"}, {Name: "catalog"}},
		Roles: []pgv1.DatabaseRoleSpec{
			{Name: "migrator", Login: ptr.To(true), Grants: []pgv1.Grant{
				{Object: pgv1.GrantOnDatabase, Privileges: []pgv1.Privilege{"CONNECT"}},
			}},
			{Name: "app", Login: ptr.To(true), ConnectionLimit: ptr.To[int32](20), Grants: []pgv1.Grant{
				{Object: pgv1.GrantOnDatabase, Privileges: []pgv1.Privilege{"CONNECT", "TEMPORARY"}},
				{Object: pgv1.GrantOnSchema, Schema: "billing", Privileges: []pgv1.Privilege{"USAGE"}},
				{Object: pgv1.GrantOnTables, Schema: "billing", Privileges: []pgv1.Privilege{"SELECT", "INSERT", "UPDATE", "DELETE"}},
				{Object: pgv1.GrantOnSequences, Schema: "billing", Privileges: []pgv1.Privilege{"USAGE", "SELECT"}},
				{Object: pgv1.GrantOnFunctions, Schema: "billing", Privileges: []pgv1.Privilege{"EXECUTE"}},
			}, DefaultPrivileges: []pgv1.DefaultPrivileges{
				{Owner: "migrator", Schema: "billing", Object: pgv1.GrantOnTables, Privileges: []pgv1.Privilege{"SELECT", "INSERT", "UPDATE", "DELETE"}},
			}},
			{Name: "analytics", InRoles: []string{"ro"}, Grants: []pgv1.Grant{
				{Object: pgv1.GrantOnTables, Schema: "billing", Names: []string{"invoices", `we"ird`}, Privileges: []pgv1.Privilege{"SELECT"}},
			}},
			{Name: "rw", ConnectionLimit: ptr.To[int32](50), Grants: []pgv1.Grant{
				{Object: pgv1.GrantOnSchema, Schema: "catalog", Privileges: []pgv1.Privilege{"USAGE"}},
			}},
		},
	}
}

// The privilege model is accepted whole, and the owners default to admin.
func TestDatabasePrivilegeModelAccepted(t *testing.T) {
	ns := newNamespace(t)
	d := validDatabase(ns)
	d.Spec.Databases = []pgv1.DatabaseSpec{privilegeModel()}
	got, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("the privilege model was refused: %v", err)
	}
	if o := got.Spec.Databases[0].Schemas[1].Owner; o != "admin" {
		t.Errorf("schema catalog's owner defaulted to %q, want admin", o)
	}
	// A fixed role's connection limit goes through its entry, as an extra
	// role's does.
	if r := got.Spec.Databases[0].Roles[3]; r.Name != "rw" || ptr.Deref(r.ConnectionLimit, 0) != 50 {
		t.Errorf("rw's entry stored as %+v", r)
	}
}

// CEL refuses unknown privileges, privileges that do not fit the object
// kind, and any role that is not one of the database's own.
func TestDatabasePrivilegeModelRules(t *testing.T) {
	ns := newNamespace(t)
	role := func(d *pgv1.DatabaseSpec, name string) *pgv1.DatabaseRoleSpec {
		for i := range d.Roles {
			if d.Roles[i].Name == name {
				return &d.Roles[i]
			}
		}
		t.Fatalf("no role %s", name)
		return nil
	}
	cases := []struct {
		name   string
		mutate func(*pgv1.DatabaseSpec)
		want   string
	}{
		{"unknown privilege", func(d *pgv1.DatabaseSpec) {
			role(d, "app").Grants[0].Privileges = []pgv1.Privilege{"ALL"}
		}, `spec.databases[0].roles[1].grants[0].privileges[0]: Unsupported value: "ALL"`},
		{"lowercase privilege", func(d *pgv1.DatabaseSpec) {
			role(d, "app").Grants[0].Privileges = []pgv1.Privilege{"select"}
		}, `Unsupported value: "select"`},
		{"table privilege on the database", func(d *pgv1.DatabaseSpec) {
			role(d, "app").Grants[0].Privileges = []pgv1.Privilege{"SELECT"}
		}, "on a database only CONNECT, TEMPORARY and CREATE can be granted"},
		{"table privilege on a schema", func(d *pgv1.DatabaseSpec) {
			role(d, "app").Grants[1].Privileges = []pgv1.Privilege{"SELECT"}
		}, "on a schema only USAGE and CREATE can be granted"},
		{"EXECUTE on tables", func(d *pgv1.DatabaseSpec) {
			role(d, "app").Grants[2].Privileges = []pgv1.Privilege{"EXECUTE"}
		}, "on tables only SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES and TRIGGER can be granted"},
		{"INSERT on sequences", func(d *pgv1.DatabaseSpec) {
			role(d, "app").Grants[3].Privileges = []pgv1.Privilege{"INSERT"}
		}, "on sequences only USAGE, SELECT and UPDATE can be granted"},
		{"SELECT on functions", func(d *pgv1.DatabaseSpec) {
			role(d, "app").Grants[4].Privileges = []pgv1.Privilege{"SELECT"}
		}, "on functions only EXECUTE can be granted"},
		{"default privileges on a schema", func(d *pgv1.DatabaseSpec) {
			role(d, "app").DefaultPrivileges[0].Object = pgv1.GrantOnSchema
			role(d, "app").DefaultPrivileges[0].Privileges = []pgv1.Privilege{"USAGE"}
		}, "default privileges are on tables, sequences or functions"},
		{"default EXECUTE on tables", func(d *pgv1.DatabaseSpec) {
			role(d, "app").DefaultPrivileges[0].Privileges = []pgv1.Privilege{"EXECUTE"}
		}, "on tables only SELECT, INSERT, UPDATE, DELETE, TRUNCATE, REFERENCES and TRIGGER can be granted"},
		{"unknown object kind", func(d *pgv1.DatabaseSpec) {
			role(d, "app").Grants[0].Object = "views"
		}, `spec.databases[0].roles[1].grants[0].object: Unsupported value: "views"`},
		{"schema on a database grant", func(d *pgv1.DatabaseSpec) {
			role(d, "app").Grants[0].Schema = "billing"
		}, "schema is required for a grant on a schema or its objects, and refused for a grant on the database"},
		{"no schema on a table grant", func(d *pgv1.DatabaseSpec) {
			role(d, "app").Grants[2].Schema = ""
		}, "schema is required for a grant on a schema or its objects"},
		{"names on sequences", func(d *pgv1.DatabaseSpec) {
			role(d, "app").Grants[3].Names = []string{"invoices_id_seq"}
		}, "names picks tables: it needs object: tables"},
		{"table name over 63 bytes", func(d *pgv1.DatabaseSpec) {
			role(d, "analytics").Grants[0].Names = []string{strings.Repeat("é", 32)}
		}, "names: a table's name is at most 63 bytes"},
		{"undeclared schema", func(d *pgv1.DatabaseSpec) {
			role(d, "app").Grants[1].Schema = "ledger"
		}, "roles: a grant's schema must be public or one of schemas"},
		{"undeclared schema in default privileges", func(d *pgv1.DatabaseSpec) {
			role(d, "app").DefaultPrivileges[0].Schema = "ledger"
		}, "roles: a grant's schema must be public or one of schemas"},
		{"another database's role as schema owner", func(d *pgv1.DatabaseSpec) {
			d.Schemas[0].Owner = "orders_admin"
		}, "schemas: an owner must be admin or a role of roles other than rw and ro"},
		{"the superuser as schema owner", func(d *pgv1.DatabaseSpec) {
			d.Schemas[0].Owner = "postgres"
		}, "schemas: an owner must be admin or a role of roles other than rw and ro"},
		{"the app role as schema owner", func(d *pgv1.DatabaseSpec) {
			d.Schemas[0].Owner = "rw"
		}, "schemas: an owner must be admin or a role of roles other than rw and ro"},
		{"the superuser in inRoles", func(d *pgv1.DatabaseSpec) {
			role(d, "analytics").InRoles = []string{"postgres"}
		}, "roles: inRoles may name only this database's roles"},
		{"a system role in inRoles", func(d *pgv1.DatabaseSpec) {
			role(d, "analytics").InRoles = []string{"pg_read_all_data"}
		}, "roles: inRoles may name only this database's roles"},
		{"the owner in inRoles", func(d *pgv1.DatabaseSpec) {
			role(d, "analytics").InRoles = []string{"admin"}
		}, "roles: inRoles may name only this database's roles"},
		{"a role in itself", func(d *pgv1.DatabaseSpec) {
			role(d, "analytics").InRoles = []string{"analytics"}
		}, "a role cannot be a member of itself"},
		{"two roles in each other", func(d *pgv1.DatabaseSpec) {
			role(d, "app").InRoles = []string{"analytics"}
			role(d, "analytics").InRoles = []string{"app"}
		}, "roles: two roles cannot be members of each other"},
		{"another database's role as default privileges' owner", func(d *pgv1.DatabaseSpec) {
			role(d, "app").DefaultPrivileges[0].Owner = "postgres"
		}, "roles: defaultPrivileges' owner must be admin or a role of roles other than rw and ro"},
		{"ro without the read-only role", func(d *pgv1.DatabaseSpec) {
			d.ReadOnlyRole = false
			d.Roles[2].InRoles = nil
			d.Roles = append(d.Roles, pgv1.DatabaseRoleSpec{Name: "ro", Grants: []pgv1.Grant{
				{Object: pgv1.GrantOnSchema, Schema: "catalog", Privileges: []pgv1.Privilege{"USAGE"}}}})
		}, "roles: the entry ro gives the read-only role grants: it needs readOnlyRole: true"},
		{"login on a fixed role", func(d *pgv1.DatabaseSpec) {
			role(d, "rw").Login = ptr.To(false)
		}, "the fixed roles rw and ro take only grants, defaultPrivileges and connectionLimit here"},
		{"inRoles on a fixed role", func(d *pgv1.DatabaseSpec) {
			role(d, "rw").InRoles = []string{"analytics"}
		}, "the fixed roles rw and ro take only grants, defaultPrivileges and connectionLimit here"},
		{"negative connection limit on a fixed role", func(d *pgv1.DatabaseSpec) {
			role(d, "rw").ConnectionLimit = ptr.To[int32](-2)
		}, "should be greater than or equal to -1"},
		{"grants to admin", func(d *pgv1.DatabaseSpec) {
			d.Roles = append(d.Roles, pgv1.DatabaseRoleSpec{Name: "admin"})
		}, "admin is the database's owner: it holds every privilege on what it owns and takes no grants"},
		{"a role named ca", func(d *pgv1.DatabaseSpec) {
			d.Roles = append(d.Roles, pgv1.DatabaseRoleSpec{Name: "ca", Login: ptr.To(true)})
		}, "ca cannot name a role: its connection ConfigMap key ca-secret names the server's CA"},
		{"role name over 63 bytes", func(d *pgv1.DatabaseSpec) {
			d.Roles = append(d.Roles, pgv1.DatabaseRoleSpec{Name: strings.Repeat("r", 59)})
		}, "a role's name <database>_<role> must fit Postgres's 63 bytes"},
		{"odd role name", func(d *pgv1.DatabaseSpec) {
			d.Roles = append(d.Roles, pgv1.DatabaseRoleSpec{Name: `x"; drop`})
		}, "should match '^[a-z][a-z0-9_]*$'"},
		{"schema public declared", func(d *pgv1.DatabaseSpec) {
			d.Schemas = append(d.Schemas, pgv1.SchemaSpec{Name: "public"})
		}, "name must not be public, information_schema or start with pg_"},
		{"system schema", func(d *pgv1.DatabaseSpec) {
			d.Schemas = append(d.Schemas, pgv1.SchemaSpec{Name: "pg_catalog"})
		}, "name must not be public, information_schema or start with pg_"},
		{"duplicate schema", func(d *pgv1.DatabaseSpec) {
			d.Schemas = append(d.Schemas, pgv1.SchemaSpec{Name: "billing"})
		}, `spec.databases[0].schemas[2]: Duplicate value`},
		{"duplicate role", func(d *pgv1.DatabaseSpec) {
			d.Roles = append(d.Roles, pgv1.DatabaseRoleSpec{Name: "app"})
		}, `spec.databases[0].roles[4]: Duplicate value`},
		{"negative connection limit", func(d *pgv1.DatabaseSpec) {
			role(d, "app").ConnectionLimit = ptr.To[int32](-2)
		}, "should be greater than or equal to -1"},
		{"no privileges", func(d *pgv1.DatabaseSpec) {
			role(d, "app").Grants[0].Privileges = nil
		}, "privileges: Required value"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := validDatabase(ns)
			m := privilegeModel()
			tc.mutate(&m)
			d.Spec.Databases = []pgv1.DatabaseSpec{m}
			_, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{})
			expectRefused(t, err, tc.want)
		})
	}
}
