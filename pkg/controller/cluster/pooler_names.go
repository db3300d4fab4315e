package cluster

import "github.com/setpoint-dev/setpoint/pkg/naming"

// poolerDNSNames are the names of the pooler's Services that CNPG's
// server certificate must carry: PgBouncer serves the cluster's server
// certificate, which names only <cluster>-rw, -r and -ro, so a client of
// <cluster>-pooler-rw with sslmode=verify-full (what the connection
// ConfigMaps say) would be refused. Each Service in the four spellings
// CNPG uses for its own. None without a pooler.
func poolerDNSNames(p *pass) []string {
	if !p.want.PoolerEnabled {
		return nil
	}
	var names []string
	ns := p.cluster.Namespace
	for _, svc := range naming.Poolers(p.cluster.Name) {
		host := naming.Host(ns, svc)
		names = append(names, svc, svc+"."+ns, host, host+".cluster.local")
	}
	return names
}
