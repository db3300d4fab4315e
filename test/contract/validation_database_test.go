package contract_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func validDatabase(ns string) *pgv1.PostgresDatabase {
	return &pgv1.PostgresDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-app", Namespace: ns},
		Spec: pgv1.PostgresDatabaseSpec{
			ClusterRef: pgv1.ClusterReference{Name: "shop"},
			Databases: []pgv1.DatabaseSpec{
				{Name: "orders", Extensions: []string{"pg_trgm", "uuid-ossp"}},
				{Name: "catalog", DeletionPolicy: pgv1.DeletionPolicyRetain},
			},
		},
	}
}

func databases(names ...string) []pgv1.DatabaseSpec {
	out := make([]pgv1.DatabaseSpec, len(names))
	for i, n := range names {
		out[i] = pgv1.DatabaseSpec{Name: n}
	}
	return out
}

func TestDatabaseCreateRules(t *testing.T) {
	ns := newNamespace(t)
	eleven := make([]string, 11)
	for i := range eleven {
		eleven[i] = "db" + string(rune('a'+i))
	}
	cases := []struct {
		name   string
		mutate func(*pgv1.PostgresDatabase)
		want   string
	}{
		{"no databases", func(d *pgv1.PostgresDatabase) { d.Spec.Databases = nil },
			`spec.databases: Required value`},
		{"empty databases", func(d *pgv1.PostgresDatabase) { d.Spec.Databases = []pgv1.DatabaseSpec{} },
			"spec.databases: Invalid value: 0: spec.databases in body should have at least 1 items"},
		{"eleven databases", func(d *pgv1.PostgresDatabase) { d.Spec.Databases = databases(eleven...) },
			"spec.databases: Too many: 11: must have at most 10 items"},
		{"duplicate names", func(d *pgv1.PostgresDatabase) { d.Spec.Databases = databases("orders", "orders") },
			`spec.databases[1]: Duplicate value: {"name":"orders"}`},
		{"uppercase name", func(d *pgv1.PostgresDatabase) { d.Spec.Databases = databases("Orders") },
			`spec.databases[0].name: Invalid value: "Orders": spec.databases[0].name in body should match '^[a-z][a-z0-9_]*$'`},
		{"quote and semicolon", func(d *pgv1.PostgresDatabase) { d.Spec.Databases = databases(`a";drop table x;--`) },
			`spec.databases[0].name in body should match '^[a-z][a-z0-9_]*$'`},
		{"unicode", func(d *pgv1.PostgresDatabase) { d.Spec.Databases = databases("café") },
			`spec.databases[0].name in body should match '^[a-z][a-z0-9_]*$'`},
		{"leading digit", func(d *pgv1.PostgresDatabase) { d.Spec.Databases = databases("1orders") },
			`spec.databases[0].name in body should match '^[a-z][a-z0-9_]*$'`},
		{"too long for role suffixes", func(d *pgv1.PostgresDatabase) { d.Spec.Databases = databases(strings.Repeat("a", 58)) },
			"spec.databases[0].name: Too long: may not be more than 57 bytes"},
		{"system database", func(d *pgv1.PostgresDatabase) { d.Spec.Databases = databases("postgres") },
			"name must not be a Postgres system database (postgres, template0, template1)"},
		{"reserved prefix", func(d *pgv1.PostgresDatabase) { d.Spec.Databases = databases("pg_orders") },
			"name must not start with the reserved prefixes pg_ or cnpg_"},
		{"unknown deletion policy", func(d *pgv1.PostgresDatabase) {
			d.Spec.Databases = []pgv1.DatabaseSpec{{Name: "orders", DeletionPolicy: "Archive"}}
		}, `spec.databases[0].deletionPolicy: Unsupported value: "Archive": supported values: "Retain", "Delete"`},
		{"bad extension", func(d *pgv1.PostgresDatabase) {
			d.Spec.Databases = []pgv1.DatabaseSpec{{Name: "orders", Extensions: []string{"x; drop"}}}
		}, `spec.databases[0].extensions[0]: Invalid value: "x; drop": spec.databases[0].extensions[0] in body should match '^[a-z][a-z0-9_-]*$'`},
		{"read-only Secret without the read-only role", func(d *pgv1.PostgresDatabase) {
			d.Spec.Databases = []pgv1.DatabaseSpec{{Name: "orders", PasswordConfig: &pgv1.DatabasePasswordConfig{
				ROSecretRef: &pgv1.LocalObjectReference{Name: "vault-ro"}}}}
		}, `spec.databases[0]: Invalid value: passwordConfig.roSecretRef is the Secret of the read-only role: it needs readOnlyRole: true`},
		{"negative statement timeout", func(d *pgv1.PostgresDatabase) {
			d.Spec.Databases = []pgv1.DatabaseSpec{{Name: "orders", StatementTimeout: &metav1.Duration{Duration: -time.Second}}}
		}, "statementTimeout must be between 0s (no timeout) and 24h"},
		{"statement timeout over a day", func(d *pgv1.PostgresDatabase) {
			d.Spec.Databases = []pgv1.DatabaseSpec{{Name: "orders", StatementTimeout: &metav1.Duration{Duration: 25 * time.Hour}}}
		}, "statementTimeout must be between 0s (no timeout) and 24h"},
		{"unknown authentication", func(d *pgv1.PostgresDatabase) {
			d.Spec.Databases = []pgv1.DatabaseSpec{{Name: "orders", Authentication: "md5"}}
		}, `spec.databases[0].authentication: Unsupported value: "md5": supported values: "password", "certificate"`},
		{"cluster namespace that is no namespace name", func(d *pgv1.PostgresDatabase) { d.Spec.ClusterRef.Namespace = "Platform" },
			`spec.clusterRef.namespace: Invalid value: "Platform": spec.clusterRef.namespace in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'`},
		{"missing cluster name", func(d *pgv1.PostgresDatabase) { d.Spec.ClusterRef.Name = "" },
			"spec.clusterRef.name: Invalid value: \"\": spec.clusterRef.name in body should be at least 1 chars long"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d := validDatabase(ns)
			tc.mutate(d)
			_, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{})
			expectRefused(t, err, tc.want)
		})
	}
}

func TestDatabaseDefaultsAndImmutableClusterRef(t *testing.T) {
	ns := newNamespace(t)
	got, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), validDatabase(ns), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create valid database: %v", err)
	}
	if p := got.Spec.Databases[0].DeletionPolicy; p != pgv1.DeletionPolicyDelete {
		t.Errorf("orders deletionPolicy defaulted to %q, want Delete", p)
	}
	if p := got.Spec.Databases[1].DeletionPolicy; p != pgv1.DeletionPolicyRetain {
		t.Errorf("catalog deletionPolicy = %q, want the Retain it was given", p)
	}

	got.Spec.ClusterRef.Name = "other"
	_, err = pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), got, metav1.UpdateOptions{})
	expectRefused(t, err, "spec.clusterRef: Invalid value: clusterRef is immutable")
}

// authentication defaults to password and is set when a database entry is
// added: changing it is refused, a new entry may choose either.
func TestDatabaseAuthenticationDefaultAndImmutable(t *testing.T) {
	ns := newNamespace(t)
	got, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), validDatabase(ns), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create valid database: %v", err)
	}
	if a := got.Spec.Databases[0].Authentication; a != pgv1.AuthenticationPassword {
		t.Errorf("authentication defaulted to %q, want password", a)
	}
	got.Spec.Databases[0].Authentication = pgv1.AuthenticationCertificate
	_, err = pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), got.DeepCopy(), metav1.UpdateOptions{})
	expectRefused(t, err, "authentication is immutable: add a database with the other method instead")

	got.Spec.Databases[0].Authentication = pgv1.AuthenticationPassword
	got.Spec.Databases = append(got.Spec.Databases, pgv1.DatabaseSpec{Name: "ledger", Authentication: pgv1.AuthenticationCertificate})
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), got, metav1.UpdateOptions{}); err != nil {
		t.Errorf("a new entry with authentication: certificate refused: %v", err)
	}
}

// A database's default statement_timeout is accepted from no timeout
// (0s) to a day, and stored as given.
func TestDatabaseStatementTimeoutAccepted(t *testing.T) {
	ns := newNamespace(t)
	d := validDatabase(ns)
	d.Spec.Databases[0].StatementTimeout = &metav1.Duration{Duration: 30 * time.Second}
	d.Spec.Databases[1].StatementTimeout = &metav1.Duration{}
	got, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("refused: %v", err)
	}
	if a, b := got.Spec.Databases[0].StatementTimeout, got.Spec.Databases[1].StatementTimeout; a == nil || a.Duration != 30*time.Second || b == nil || b.Duration != 0 {
		t.Errorf("stored %v and %v", a, b)
	}
}
