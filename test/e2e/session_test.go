package e2e_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"

	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// standInSessions is how this tier reaches a cluster (testkit.Sessions):
// the Service's name as an application in the cluster would dial it,
// TLS verified against the cluster's CA for the -rw Service's name, the
// address redirected by the stand-in's host map.
func standInSessions(ctx context.Context, ns, cluster, service, database string) (*pgx.ConnConfig, error) {
	ca, err := kube.CoreV1().Secrets(ns).Get(ctx, naming.CASecret(cluster), metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("CA Secret: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca.Data["ca.crt"]) {
		return nil, fmt.Errorf("CA Secret %s holds no certificate", ca.Name)
	}
	host := naming.Host(ns, service)
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%d dbname=%s sslmode=verify-full", host, postgres.Port, database))
	if err != nil {
		return nil, err
	}
	cfg.TLSConfig = &tls.Config{ServerName: naming.Host(ns, naming.RWService(cluster)), RootCAs: pool, MinVersion: tls.VersionTLS12}
	cfg.Fallbacks = nil
	cfg.LookupFunc = func(_ context.Context, h string) ([]string, error) { return []string{h}, nil }
	hosts := postgres.NewHostMap(hostMap)
	var d net.Dialer
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		to, err := hosts.Resolve(addr)
		if err != nil {
			return nil, err
		}
		return d.DialContext(ctx, network, to)
	}
	return cfg, nil
}
