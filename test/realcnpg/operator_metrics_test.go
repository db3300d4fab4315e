package realcnpg

import (
	"context"
	"crypto/tls"
	"fmt"
	"net"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/test/promsample"
)

// operatorMetrics scrapes /metrics of every running setpoint Pod over
// HTTPS with token, through the node's network namespace, and returns
// their samples together. The serving certificate is the operator's own
// self-signed one: the scrape checks the figures and the authorization,
// not the chain (the in-cluster e2e test checks what a Prometheus needs).
func operatorMetrics(ctx context.Context, token string) ([]promsample.Sample, error) {
	pods, err := kube.CoreV1().Pods(SetpointNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, err
	}
	var all []promsample.Sample
	for _, p := range pods.Items {
		if p.Status.Phase != corev1.PodRunning || p.Status.PodIP == "" {
			continue
		}
		url := "https://" + net.JoinHostPort(p.Status.PodIP, "8443") + "/metrics"
		samples, err := scrape(ctx, url, token, &tls.Config{InsecureSkipVerify: true}) //nolint:gosec // see the function's comment
		if err != nil {
			return nil, fmt.Errorf("scrape %s: %w", p.Name, err)
		}
		all = append(all, samples...)
	}
	return all, nil
}

// gauge is the value of metric for a cluster among samples.
func gauge(samples []promsample.Sample, metric, ns, cluster string) (float64, bool) {
	for _, s := range samples {
		if s.Name == metric && s.Matches("namespace", ns, "postgrescluster", cluster) {
			return s.Value, true
		}
	}
	return 0, false
}

// collectorSeesTheReplica holds the collector to real Postgres with a
// streaming replica: the in-cluster operator's /metrics, scraped as an
// authorized scraper, carries the replica's replay lag (a gauge that is
// absent without standbys) and says the primary accepts writes.
func collectorSeesTheReplica(t *testing.T, ns, cluster string) {
	t.Helper()
	token := kit.MetricsReaderToken(t, ns)
	var lag float64
	kit.Eventually(t, 3*time.Minute, "the collector's sample of "+cluster, func(ctx context.Context) (bool, string, error) {
		samples, err := operatorMetrics(ctx, token)
		if err != nil {
			return false, err.Error(), nil
		}
		var ok bool
		lag, ok = gauge(samples, "setpoint_postgres_replication_lag_bytes", ns, cluster)
		writes, _ := gauge(samples, "setpoint_postgres_accepts_writes", ns, cluster)
		return ok && writes == 1, fmt.Sprintf("lag present %v, accepts_writes %v", ok, writes), nil
	})
	if lag < 0 {
		t.Errorf("replication lag %v bytes", lag)
	}
	t.Logf("the collector's replay lag of %s/%s's replica: %v bytes", ns, cluster, lag)
}

// collectorSeesTheReplay holds the collector to a real replica cluster
// that streams: the in-cluster operator's /metrics carries the commit time
// of the last transaction cluster replayed, no earlier than committed
// (rows its source committed after that time were replayed before this is
// called), and says its WAL receiver streams.
func collectorSeesTheReplay(t *testing.T, ns, cluster string, committed time.Time) {
	t.Helper()
	token := kit.MetricsReaderToken(t, ns)
	kit.Eventually(t, 3*time.Minute, "the collector's replay time of "+cluster, func(ctx context.Context) (bool, string, error) {
		samples, err := operatorMetrics(ctx, token)
		if err != nil {
			return false, err.Error(), nil
		}
		at, ok := gauge(samples, "setpoint_postgres_last_replay_timestamp_seconds", ns, cluster)
		streaming, _ := gauge(samples, "setpoint_postgres_wal_receiver_streaming", ns, cluster)
		replayed := time.UnixMilli(int64(at * 1000))
		return ok && !replayed.Before(committed) && streaming == 1, fmt.Sprintf("present %v, last replayed commit %s, want at or after %s; wal_receiver_streaming %v",
			ok, replayed.UTC().Format(time.RFC3339), committed.UTC().Format(time.RFC3339), streaming), nil
	})
}
