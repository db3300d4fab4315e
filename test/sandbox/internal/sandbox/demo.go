package sandbox

import (
	"context"
	"io"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
	"github.com/setpoint-dev/setpoint/test/demo"
)

// Demo runs the demo (test/demo) in the sandbox: the samples as they are,
// reached through the sandbox's host map. The operator must be running
// (RunOperator).
func (sb *Sandbox) Demo(ctx context.Context, out io.Writer, samplesDir string) error {
	return demo.Run(ctx, out, demo.Options{Config: sb.Env.Config, Samples: samplesDir, Connect: sb.connect, Timeout: 3 * time.Minute})
}

// connect reaches the stand-in's Postgres server for the ConfigMap's
// cluster through the host map, with TLS verified against the CA.
func (sb *Sandbox) connect(ctx context.Context, cm *corev1.ConfigMap, user, password string, ca []byte) (*pgx.Conn, error) {
	return postgres.NewConnector(postgres.NewHostMap(sb.HostMapPath)).Connect(ctx, postgres.Target{
		Namespace: demo.Namespace, Cluster: demo.Cluster, Database: cm.Data[naming.KeyDatabase],
		User: user, Password: password, CACert: ca,
	})
}
