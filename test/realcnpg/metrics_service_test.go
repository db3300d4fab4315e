package realcnpg

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/test/promsample"
)

// metricsServiceScrapes holds the metrics Service (monitoring.service) to
// real CloudNativePG: its selector finds every instance pod CNPG runs for
// the cluster and no PgBouncer pod, and each endpoint serves CNPG's
// exporter on the annotated port and path.
func metricsServiceScrapes(t *testing.T, ns, cluster string) {
	t.Helper()
	svc, err := kube.CoreV1().Services(ns).Get(t.Context(), cluster+"-metrics", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("metrics Service: %v", err)
	}
	port, path := svc.Annotations["prometheus.io/port"], svc.Annotations["prometheus.io/path"]
	if svc.Annotations["prometheus.io/scrape"] != "true" || port == "" || path == "" {
		t.Fatalf("metrics Service annotations %v", svc.Annotations)
	}
	instances, err := kube.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "cnpg.io/cluster=" + cluster + ",cnpg.io/podRole=instance"})
	if err != nil || len(instances.Items) == 0 {
		t.Fatalf("CNPG's instance pods of %s: %d (%v)", cluster, len(instances.Items), err)
	}
	var want []string
	for _, p := range instances.Items {
		want = append(want, p.Status.PodIP)
	}
	slices.Sort(want)
	var ips []string
	kit.Eventually(t, 2*time.Minute, "the metrics Service's endpoints are the instance pods", func(ctx context.Context) (bool, string, error) {
		ips = readyEndpoints(ctx, ns, svc.Name)
		return slices.Equal(ips, want), fmt.Sprintf("endpoints %v, instance pods %v", ips, want), nil
	})
	for _, ip := range ips {
		samples, err := scrape(t.Context(), "http://"+net.JoinHostPort(ip, port)+path, "", nil)
		if err != nil {
			t.Fatalf("scrape %s%s through the metrics Service's endpoint: %v", ip, path, err)
		}
		if !slices.ContainsFunc(samples, func(s promsample.Sample) bool { return s.Name == "cnpg_collector_up" }) {
			t.Errorf("%s%s served no cnpg_collector_up sample (%d samples)", ip, path, len(samples))
		}
	}
}

// readyEndpoints are the ready addresses of the Service's EndpointSlices,
// sorted.
func readyEndpoints(ctx context.Context, ns, service string) []string {
	eps, err := kube.DiscoveryV1().EndpointSlices(ns).List(ctx, metav1.ListOptions{LabelSelector: discoveryv1.LabelServiceName + "=" + service})
	if err != nil {
		return nil
	}
	var ips []string
	for _, s := range eps.Items {
		for _, e := range s.Endpoints {
			if e.Conditions.Ready != nil && *e.Conditions.Ready {
				ips = append(ips, e.Addresses...)
			}
		}
	}
	slices.Sort(ips)
	return ips
}

// scrape GETs url inside the node's network namespace, with token as a
// bearer token when set, and parses the exposition it returns.
func scrape(ctx context.Context, url, token string, tlsConf *tls.Config) ([]promsample.Sample, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	addr := req.URL.Host
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{
		DialContext:     func(context.Context, string, string) (net.Conn, error) { return theNode.Dial(addr) },
		TLSClientConfig: tlsConf,
	}}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 500))
		return nil, fmt.Errorf("%s: %s", resp.Status, b)
	}
	return promsample.Parse(io.LimitReader(resp.Body, 8<<20))
}
