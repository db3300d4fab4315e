package realcnpg

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/test/demo"
)

// connect opens a session to the cluster's -rw Service as the user of the
// Secret, verifying the server against the cluster's CA as an application
// would; the connection goes through the node's namespace.
func connect(t *testing.T, ns, cluster, database, secret string) *pgx.Conn {
	t.Helper()
	return connectVia(t, ns, cluster, cluster+"-rw", database, secret)
}

// connectVia is connect through Service service (the cluster's -rw or its
// pooler's).
func connectVia(t *testing.T, ns, cluster, service, database, secret string) *pgx.Conn {
	t.Helper()
	sec, err := kube.CoreV1().Secrets(ns).Get(t.Context(), secret, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Secret %s: %v", secret, err)
	}
	user, password := string(sec.Data["username"]), string(sec.Data["password"])
	conn, err := loginVia(t, ns, cluster, service, database, user, password)
	if err != nil {
		t.Fatalf("connect as %s: %v", user, err)
	}
	return conn
}

// login opens a session through the -rw Service as user with password;
// the error says why Postgres refused it. The session closes with the test.
func login(t *testing.T, ns, cluster, database, user, password string) (*pgx.Conn, error) {
	t.Helper()
	return loginVia(t, ns, cluster, cluster+"-rw", database, user, password)
}

func loginVia(t *testing.T, ns, cluster, service, database, user, password string) (*pgx.Conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cfg, err := sessionConfig(ctx, ns, cluster, service, database)
	if err != nil {
		return nil, err
	}
	cfg.User, cfg.Password = user, password
	// A Service whose Pods just became ready may not route yet: kube-proxy
	// programs it a moment later. An application retries a refused
	// connection; so does this, only that one.
	var conn *pgx.Conn
	for {
		conn, err = pgx.ConnectConfig(ctx, cfg)
		if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || ctx.Err() != nil {
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = conn.Close(context.WithoutCancel(t.Context())) })
	return conn, nil
}

// sessionConfig is how an application in the cluster reaches Service
// service: TLS verified against the cluster's CA for the -rw Service's
// name (CNPG's server certificate, which PgBouncer presents too), dialled
// through the node's namespace. User and password are the caller's.
func sessionConfig(ctx context.Context, ns, cluster, service, database string) (*pgx.ConnConfig, error) {
	ca, err := kube.CoreV1().Secrets(ns).Get(ctx, cluster+"-ca", metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("CA Secret: %w", err)
	}
	svc, err := kube.CoreV1().Services(ns).Get(ctx, service, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("Service %s: %w", service, err)
	}
	return demo.NodeConnConfig(naming.Host(ns, naming.RWService(cluster)), svc.Spec.ClusterIP, "5432", database, ca.Data["ca.crt"], theNode.Dial)
}

// passwordRefused reports whether err is Postgres refusing the password
// (invalid_password), not any other failure to connect.
func passwordRefused(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "28P01"
}

// passwordSwitched waits until user logs in with newPassword and Postgres
// refuses oldPassword.
func passwordSwitched(t *testing.T, ns, cluster, database, user, oldPassword, newPassword string) {
	t.Helper()
	kit.Eventually(t, 90*time.Second, user+" logs in with the new password and not the old one", func(context.Context) (bool, string, error) {
		conn, err := login(t, ns, cluster, database, user, newPassword)
		if err != nil {
			return false, "new password: " + err.Error(), nil
		}
		_ = conn.Close(t.Context())
		_, err = login(t, ns, cluster, database, user, oldPassword)
		return passwordRefused(err), fmt.Sprintf("old password: %v", err), nil
	})
}
