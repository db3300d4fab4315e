package realcnpg

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/test/demo"
)

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
