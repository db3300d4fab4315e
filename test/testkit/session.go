package testkit

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Sessions is how a tier reaches a cluster's Postgres: the connection
// configuration for Service service of cluster (its -rw Service, or a
// pooler's), TLS verified against the cluster's server CA as an
// application verifies it. The stand-in dials through its host map, the
// real tier through the node's Services; user, password and a client
// certificate are the caller's to set.
type Sessions func(ctx context.Context, ns, cluster, service, database string) (*pgx.ConnConfig, error)

// Open opens a session to cluster's -rw Service as user with password,
// closed by the caller. A Service whose endpoints just changed may refuse
// the first dial (kube-proxy programs it a moment later): an application
// retries that, so does Open, only that, while ctx lasts.
func (k Kit) Open(ctx context.Context, ns, cluster, database, user, password string) (*pgx.Conn, error) {
	return k.OpenVia(ctx, ns, cluster, cluster+"-rw", database, user, password)
}

// OpenVia is Open through Service service.
func (k Kit) OpenVia(ctx context.Context, ns, cluster, service, database, user, password string) (*pgx.Conn, error) {
	if k.Sessions == nil {
		return nil, errors.New("this tier's kit has no Sessions")
	}
	cfg, err := k.Sessions(ctx, ns, cluster, service, database)
	if err != nil {
		return nil, err
	}
	cfg.User, cfg.Password = user, password
	for {
		conn, err := pgx.ConnectConfig(ctx, cfg)
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || ctx.Err() != nil {
			return conn, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(k.Poll):
		}
	}
}

// Login is Open for a test: bounded by the kit's login timeout (10 s on
// the stand-in), and the session closes with the test. The error says
// why Postgres refused.
func (k Kit) Login(t testing.TB, ns, cluster, database, user, password string) (*pgx.Conn, error) {
	t.Helper()
	return k.LoginVia(t, ns, cluster, cluster+"-rw", database, user, password)
}

// LoginVia is Login through Service service.
func (k Kit) LoginVia(t testing.TB, ns, cluster, service, database, user, password string) (*pgx.Conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), k.scaled(10*time.Second))
	defer cancel()
	conn, err := k.OpenVia(ctx, ns, cluster, service, database, user, password)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = conn.Close(context.WithoutCancel(t.Context())) })
	return conn, nil
}

// SQLState is the SQLSTATE of Postgres's error in err, "" when none.
func SQLState(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// PasswordRefused reports whether err is Postgres refusing the password
// (invalid_password, 28P01), not any other failure to connect.
func PasswordRefused(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "28P01"
}

// PasswordSwitched waits until user logs in with newPassword and Postgres
// refuses oldPassword (a minute on the stand-in).
func (k Kit) PasswordSwitched(t testing.TB, ns, cluster, database, user, oldPassword, newPassword string) {
	t.Helper()
	k.Eventually(t, k.scaled(time.Minute), user+" logs in with the new password and not the old one", func(context.Context) (bool, string, error) {
		conn, err := k.Login(t, ns, cluster, database, user, newPassword)
		if err != nil {
			return false, "new password: " + err.Error(), nil
		}
		_ = conn.Close(t.Context())
		_, err = k.Login(t, ns, cluster, database, user, oldPassword)
		return PasswordRefused(err), fmt.Sprintf("old password: %v", err), nil
	})
}

// ConnectAs opens a session to database of cluster's -rw Service as the
// user of Secret secret (its username and password), for a test that
// needs it: Postgres refusing fails the test, and the session closes
// with it.
func (k Kit) ConnectAs(t testing.TB, ns, cluster, database, secret string) *pgx.Conn {
	t.Helper()
	return k.ConnectAsVia(t, ns, cluster, cluster+"-rw", database, secret)
}

// ConnectAsVia is ConnectAs through Service service (the cluster's -rw
// or its pooler's).
func (k Kit) ConnectAsVia(t testing.TB, ns, cluster, service, database, secret string) *pgx.Conn {
	t.Helper()
	s := k.Secret(t, ns, secret)
	user, password := string(s.Data["username"]), string(s.Data["password"])
	conn, err := k.LoginVia(t, ns, cluster, service, database, user, password)
	if err != nil {
		t.Fatalf("connect as %s: %v", user, err)
	}
	return conn
}
