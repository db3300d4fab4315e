package sandbox

import (
	"context"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/operator"
)

// RunOperator runs setpoint in this process against the sandbox until ctx
// ends, as `setpoint --kubeconfig .sandbox/kubeconfig --postgres-host-map
// .sandbox/hostmap.json --leader-elect=false` would.
func (sb *Sandbox) RunOperator(ctx context.Context, metricsAddr string) error {
	return operator.Run(ctx, operator.Config{
		Rest:            sb.Env.Config,
		ClusterWorkers:  4,
		DatabaseWorkers: 8,
		Resync:          10 * time.Minute,
		MetricsAddr:     metricsAddr,
		HealthAddr:      "0",
		PostgresHostMap: sb.HostMapPath,
		PostgresTimeout: 5 * time.Second,
	})
}
