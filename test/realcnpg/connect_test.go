package realcnpg

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"
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
	conn, err := kit.LoginVia(t, ns, cluster, service, database, user, password)
	if err != nil {
		t.Fatalf("connect as %s: %v", user, err)
	}
	return conn
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
