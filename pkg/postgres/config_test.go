package postgres

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

var target = Target{Namespace: "default", Cluster: "shop", Database: "orders", User: "orders_admin", Password: "s3cr'et\\"}

// pgEnv is every variable pgx reads, set to values that would steer or
// break a connection if they had any effect.
func pgEnv(t *testing.T) map[string]string {
	dir := t.TempDir()
	pass := filepath.Join(dir, "pgpass")
	if err := os.WriteFile(pass, []byte("*:*:*:*:from-passfile\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.pem")
	return map[string]string{
		"PGHOST": "evil.example.com", "PGPORT": "6543", "PGDATABASE": "postgres", "PGUSER": "mallory",
		"PGPASSWORD": "from-env", "PGPASSFILE": pass, "PGAPPNAME": "not-setpoint", "PGCONNECT_TIMEOUT": "1",
		"PGSSLMODE": "verify-full", "PGSSLKEY": missing, "PGSSLCERT": missing, "PGSSLCERTMODE": "require",
		"PGSSLSNI": "0", "PGSSLROOTCERT": missing, "PGSSLPASSWORD": "x", "PGSSLNEGOTIATION": "direct",
		"PGTARGETSESSIONATTRS": "read-only", "PGTZ": "Pacific/Kiritimati", "PGOPTIONS": "-c statement_timeout=1",
		"PGMINPROTOCOLVERSION": "3.2", "PGMAXPROTOCOLVERSION": "latest", "PGCHANNELBINDING": "require",
		"PGREQUIREAUTH": "none", "PGSERVICEFILE": filepath.Join(dir, "missing.conf"),
	}
}

func clearPGEnv(t *testing.T) {
	for k := range pgEnv(t) {
		t.Setenv(k, "") // restores the old value after the test
		os.Unsetenv(k)
	}
	t.Setenv("PGSERVICE", "")
	os.Unsetenv("PGSERVICE")
	t.Setenv("HOME", t.TempDir()) // no ~/.pgpass or ~/.postgresql either
}

// The operator's own PG* environment has no effect on how it connects to
// a cluster: the configuration is the same with it as without it.
func TestConnConfigIgnoresTheEnvironment(t *testing.T) {
	clearPGEnv(t)
	clean, err := connConfig("shop-rw.default.svc", target)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range pgEnv(t) {
		t.Setenv(k, v)
	}
	hostile, err := connConfig("shop-rw.default.svc", target)
	if err != nil {
		t.Fatalf("the environment broke the configuration: %v", err)
	}

	if clean.Host != "shop-rw.default.svc" || clean.Port != Port || clean.Database != "orders" ||
		clean.User != "orders_admin" || clean.Password != target.Password {
		t.Errorf("configuration %s:%d/%s as %s does not come from the target", clean.Host, clean.Port, clean.Database, clean.User)
	}
	if got := clean.RuntimeParams; !reflect.DeepEqual(got, map[string]string{"application_name": "setpoint"}) {
		t.Errorf("runtime parameters %v, want only application_name=setpoint", got)
	}
	compareConfigs(t, reflect.ValueOf(clean.Config), reflect.ValueOf(hostile.Config), "Config")
	compareConfigs(t, reflect.ValueOf(*clean), reflect.ValueOf(*hostile), "ConnConfig")
}

// compareConfigs compares every exported field; functions only by whether
// they are set, since they cannot be compared.
func compareConfigs(t *testing.T, a, b reflect.Value, path string) {
	t.Helper()
	for i := range a.NumField() {
		f := a.Type().Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		x, y := a.Field(i), b.Field(i)
		if f.Type.Kind() == reflect.Func {
			if x.IsNil() != y.IsNil() {
				t.Errorf("%s.%s: set %v without the environment, %v with it", path, f.Name, !x.IsNil(), !y.IsNil())
			}
			continue
		}
		if !reflect.DeepEqual(x.Interface(), y.Interface()) {
			t.Errorf("%s.%s: %v without the environment, %v with it", path, f.Name, x.Interface(), y.Interface())
		}
	}
}

// A connection-string value is quoted so that spaces and quotes in a name
// cannot add settings, and the password is never in it.
func TestConnStringQuotesAndOmitsThePassword(t *testing.T) {
	clearPGEnv(t)
	odd := Target{Database: "a b", User: `o'brien\ sslmode=require`, Password: "s3cret"}
	cfg, err := connConfig("h", odd)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Database != odd.Database || cfg.User != odd.User {
		t.Errorf("database %q user %q, want %q %q", cfg.Database, cfg.User, odd.Database, odd.User)
	}
	if s := connString("h", odd); strings.Contains(s, "s3cret") {
		t.Errorf("connection string %q carries the password", s)
	}
}
