package grantplan

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// server is a PostgreSQL of this machine's, started for one test: the
// catalog query, the plan and its statements meet a real catalog.
type server struct{ port int }

// startServer starts PostgreSQL in a temporary directory; the test is
// skipped when no PostgreSQL is installed (make postgres installs it) or
// with -short, and fails when SETPOINT_REQUIRE_CONTROLPLANE is set.
func startServer(t *testing.T) server {
	t.Helper()
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	bin := "/usr/lib/postgresql/15/bin"
	if _, err := os.Stat(filepath.Join(bin, "initdb")); err != nil {
		if os.Getenv("SETPOINT_REQUIRE_CONTROLPLANE") != "" {
			t.Fatalf("no PostgreSQL: %v", err)
		}
		t.Skipf("no PostgreSQL: %v", err)
	}
	dir, err := os.MkdirTemp("", "grantplan-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if os.Getuid() == 0 { // Postgres refuses root: hand it to the postgres OS user
		u, err := user.Lookup("postgres")
		if err != nil {
			t.Fatal(err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		attr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	initdb := exec.Command(filepath.Join(bin, "initdb"), "-D", filepath.Join(dir, "data"), "-U", "postgres", "-A", "trust",
		"--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions")
	initdb.SysProcAttr = attr
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v: %s", err, out)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	pgcmd := exec.Command(filepath.Join(bin, "postgres"), "-D", filepath.Join(dir, "data"),
		"-c", "listen_addresses=127.0.0.1", "-p", strconv.Itoa(port), "-k", dir, "-c", "fsync=off")
	pgcmd.SysProcAttr = attr
	if err := pgcmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = pgcmd.Process.Signal(syscall.SIGINT)
		_ = pgcmd.Wait()
	})
	s := server{port: port}
	deadline := time.Now().Add(30 * time.Second)
	for {
		c, err := s.connect(t.Context(), "postgres", "postgres")
		if err == nil {
			c.Close(t.Context())
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("PostgreSQL did not start: %v", err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (s server) connect(ctx context.Context, user, db string) (*pgx.Conn, error) {
	return pgx.Connect(ctx, fmt.Sprintf("host=127.0.0.1 port=%d user=%s dbname=%s sslmode=disable", s.port, user, db))
}

func (s server) must(t *testing.T, user, db string) *pgx.Conn {
	t.Helper()
	c, err := s.connect(t.Context(), user, db)
	if err != nil {
		t.Fatalf("connect as %s to %s: %v", user, db, err)
	}
	t.Cleanup(func() { c.Close(context.WithoutCancel(t.Context())) })
	return c
}

func exec1(t *testing.T, c *pgx.Conn, stmts ...string) {
	t.Helper()
	for _, s := range stmts {
		if _, err := c.Exec(t.Context(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}

// read runs CatalogQuery as c.
func read(t *testing.T, c *pgx.Conn, w Want) Catalog {
	t.Helper()
	rows, err := c.Query(t.Context(), CatalogQuery, w.Managed)
	if err != nil {
		t.Fatalf("catalog query: %v", err)
	}
	var out []Row
	for rows.Next() {
		var r Row
		if err := rows.Scan(&r.Type, &r.Kind, &r.Schema, &r.Name, &r.Args, &r.Owner, &r.Grantee, &r.Privilege, &r.Grantable); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("catalog query: %v", err)
	}
	return FromRows(out)
}

// apply plans and runs the plan in one transaction as c.
func apply(t *testing.T, c *pgx.Conn, w Want) Result {
	t.Helper()
	r := Plan(w, read(t, c, w))
	err := pgx.BeginFunc(t.Context(), c, func(tx pgx.Tx) error {
		for _, s := range r.Statements {
			if _, err := tx.Exec(t.Context(), s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("apply: %v", err)
	}
	return r
}

func sqlstate(err error) string {
	var e *pgconn.PgError
	if errors.As(err, &e) {
		return e.Code
	}
	if err != nil {
		return err.Error()
	}
	return ""
}

// check runs stmt as c and wants SQLSTATE code ("" for success), in a
// transaction it rolls back.
func check(t *testing.T, c *pgx.Conn, code, stmt string) {
	t.Helper()
	tx, err := c.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	defer tx.Rollback(context.WithoutCancel(t.Context()))
	_, err = tx.Exec(t.Context(), stmt)
	if got := sqlstate(err); got != code {
		user := c.Config().User
		t.Errorf("as %s: %s: SQLSTATE %q (%v), want %q", user, stmt, got, err, code)
	}
}

// The model on a real PostgreSQL, applied as the database's owner:
// each role may do what it is declared to and nothing more; a hand-made
// grant is revoked; a removed grant is revoked; a converged database plans
// nothing; objects and roles not setpoint's are left alone.
func TestPlanOnPostgres(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	su := s.must(t, "postgres", "postgres")
	// What CloudNativePG does for setpoint: the roles (the owner a member
	// of each extra role) and the database owned by <db>_admin.
	exec1(t, su,
		`CREATE ROLE shop_admin LOGIN`, `CREATE ROLE shop_rw LOGIN`, `CREATE ROLE shop_ro LOGIN`,
		`CREATE ROLE shop_migrator LOGIN`, `CREATE ROLE shop_app LOGIN`, `CREATE ROLE someone LOGIN`,
		`GRANT shop_migrator, shop_app TO shop_admin`,
		`CREATE DATABASE shop OWNER shop_admin`)
	sushop := s.must(t, "postgres", "shop")
	exec1(t, sushop, `REVOKE CONNECT, TEMPORARY ON DATABASE shop FROM PUBLIC`)

	d := shop()
	w := Declared(d, shopNames)
	admin := s.must(t, "shop_admin", "shop")
	first := apply(t, admin, w)
	if len(first.Statements) == 0 {
		t.Fatal("the first plan is empty")
	}
	if again := Plan(w, read(t, admin, w)); len(again.Statements) != 0 {
		t.Fatalf("once applied, the plan still runs %q", again.Statements)
	}

	// The migrator builds the schema; the defaults reach the others.
	migrator := s.must(t, "shop_migrator", "shop")
	exec1(t, migrator, `CREATE TABLE billing.invoices (id bigserial PRIMARY KEY, total int)`,
		`CREATE TABLE billing."we""ird é" (id int)`)
	app := s.must(t, "shop_app", "shop")
	ro := s.must(t, "shop_ro", "shop")
	check(t, app, "", `INSERT INTO billing.invoices (id, total) VALUES (1, 1)`)
	check(t, app, "", `SELECT * FROM billing."we""ird é"`)
	check(t, app, "42501", `UPDATE billing.invoices SET total = 2`)
	check(t, app, "42501", `CREATE TABLE billing.x (id int)`)
	check(t, app, "42501", `DROP TABLE billing.invoices`)
	check(t, ro, "", `SELECT * FROM billing.invoices`)
	check(t, ro, "42501", `INSERT INTO billing.invoices (id, total) VALUES (2, 1)`)
	check(t, migrator, "", `ALTER TABLE billing.invoices ADD COLUMN note text`)
	check(t, migrator, "42501", `CREATE TABLE public.x (id int)`)
	if _, err := s.connect(t.Context(), "someone", "shop"); sqlstate(err) != "42501" {
		t.Errorf("a role with no grant connects: %v", err)
	}
	// The sequence of invoices: the app may not use it (not declared).
	check(t, app, "42501", `SELECT nextval('billing.invoices_id_seq')`)

	// Drift by hand, and a table of someone else's with our role on it.
	exec1(t, sushop, `GRANT TRUNCATE ON billing.invoices TO shop_app`, `GRANT CREATE ON SCHEMA billing TO shop_ro`,
		`ALTER DEFAULT PRIVILEGES FOR ROLE shop_admin GRANT DELETE ON TABLES TO shop_ro`,
		`CREATE TABLE billing.audit (id int)`, `ALTER TABLE billing.audit OWNER TO someone`,
		`GRANT SELECT ON billing.audit TO shop_app`, `GRANT SELECT ON billing.invoices TO someone`)
	drift := apply(t, admin, w)
	for _, want := range []string{`TRUNCATE ON TABLE "billing"."invoices" FROM "shop_app"`,
		`CREATE ON SCHEMA "billing" FROM "shop_ro"`, `default DELETE ON TABLES of "shop_admin" FROM "shop_ro"`} {
		if !slices.Contains(drift.Revoked, want) {
			t.Errorf("drift %s not revoked: %q", want, drift.Revoked)
		}
	}
	if !slices.Contains(drift.Skipped, `TABLE "billing"."audit" is owned by "someone", not a role of setpoint's`) {
		t.Errorf("the table of someone else's is not reported: %q", drift.Skipped)
	}
	check(t, app, "42501", `TRUNCATE billing.invoices`)
	check(t, ro, "42501", `CREATE TABLE billing.y (id int)`)
	check(t, app, "", `SELECT * FROM billing.audit`) // left alone
	var keeps bool
	if err := sushop.QueryRow(t.Context(), `SELECT has_table_privilege('someone', 'billing.invoices', 'SELECT')`).Scan(&keeps); err != nil || !keeps {
		t.Errorf("a role not setpoint's lost its grant: %v %v", keeps, err)
	}

	// A grant removed from the spec is revoked.
	d.Roles[1].Grants[2].Privileges = []pgv1.Privilege{"SELECT"}
	w = Declared(d, shopNames)
	removed := apply(t, admin, w)
	if len(removed.Statements) == 0 {
		t.Fatal("removing INSERT planned nothing")
	}
	check(t, app, "42501", `INSERT INTO billing.invoices (id, total) VALUES (1, 1)`)
	check(t, app, "", `SELECT * FROM billing.invoices`)
	exec1(t, migrator, `CREATE TABLE billing.later (id int)`)
	check(t, app, "42501", `INSERT INTO billing.later VALUES (1)`)
	check(t, app, "", `SELECT * FROM billing.later`)
	if again := Plan(w, read(t, admin, w)); len(again.Statements) != 0 {
		t.Errorf("converged, the plan still runs %q", again.Statements)
	}
}

// A plan cut off midway — the operator's connection dropped after some of
// its statements, as when the operator restarts mid-apply — leaves the old
// privileges whole: the same plan is due again, and once it runs whole
// the new privileges hold, with nothing of a mix in between.
func TestPlanCutOffLeavesOldPrivileges(t *testing.T) {
	t.Parallel()
	s := startServer(t)
	su := s.must(t, "postgres", "postgres")
	exec1(t, su, `CREATE ROLE shop_admin LOGIN`, `CREATE ROLE shop_rw LOGIN`, `CREATE ROLE shop_ro LOGIN`,
		`CREATE ROLE shop_migrator LOGIN`, `CREATE ROLE shop_app LOGIN`, `GRANT shop_migrator, shop_app TO shop_admin`,
		`CREATE DATABASE shop OWNER shop_admin`)
	w := Declared(shop(), shopNames)
	admin := s.must(t, "shop_admin", "shop")
	before := Plan(w, read(t, admin, w))
	if len(before.Statements) < 4 {
		t.Fatalf("the plan has %d statements: too few to cut", len(before.Statements))
	}

	// Half the plan in a transaction, then the connection is killed.
	victim := s.must(t, "shop_admin", "shop")
	tx, err := victim.Begin(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range before.Statements[:len(before.Statements)/2] {
		if _, err := tx.Exec(t.Context(), stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	pid := victim.PgConn().PID()
	var killed bool
	if err := su.QueryRow(t.Context(), `SELECT pg_terminate_backend($1)`, pid).Scan(&killed); err != nil || !killed {
		t.Fatalf("terminate the operator's connection: %v %v", killed, err)
	}
	if err := tx.Commit(t.Context()); err == nil {
		t.Fatal("the cut-off transaction committed")
	}

	after := Plan(w, read(t, admin, w))
	equal(t, "the plan after the cut", after.Statements, before.Statements)
	var schemas int
	if err := admin.QueryRow(t.Context(), `SELECT count(*) FROM pg_namespace WHERE nspname = 'billing'`).Scan(&schemas); err != nil || schemas != 0 {
		t.Errorf("schema billing exists after the cut: %d %v", schemas, err)
	}
	apply(t, admin, w)
	if again := Plan(w, read(t, admin, w)); len(again.Statements) != 0 {
		t.Errorf("once applied whole, the plan still runs %q", again.Statements)
	}
}
