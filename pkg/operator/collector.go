package operator

import (
	"github.com/setpoint-dev/setpoint/pkg/collector"
	"github.com/setpoint-dev/setpoint/pkg/controller/cluster"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgca"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// newCollector builds the Postgres health collector on the controllers'
// informers. It has a connector of its own, with the same host map and
// TLS verification but without the pipelines' connection and statement
// counters: those measure what passes cost (a converged resync runs no
// SQL), the collector's cost is counted by its own metrics.
func (c *controllers) newCollector(inf *informers.Informers, cas *cnpgca.CACache) (*collector.Collector, error) {
	opts := c.cfg.Collector
	opts.Timeout = c.cfg.PostgresTimeout
	opts.WakeThresholds = cluster.GrowThresholds(inf.Setpoint.Postgres().V1alpha1().PostgresClusterClasses().Lister())
	return collector.New(opts, collector.Deps{
		Kube:         c.kube,
		Connector:    postgres.NewConnector(postgres.NewHostMap(c.cfg.PostgresHostMap)),
		Clusters:     inf.Setpoint.Postgres().V1alpha1().PostgresClusters().Informer(),
		CNPGClusters: inf.Setpoint.CNPG().V1().Clusters().Lister(),
		Secrets:      inf.Kube.Core().V1().Secrets().Lister(),
		CAs:          cas,
		Metrics:      c.cm,
	})
}
