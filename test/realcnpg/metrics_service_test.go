package realcnpg

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
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
	eventually(t, 2*time.Minute, "the metrics Service's endpoints are the instance pods", func(ctx context.Context) (bool, string, error) {
		ips = readyEndpoints(ctx, ns, svc.Name)
		return slices.Equal(ips, want), fmt.Sprintf("endpoints %v, instance pods %v", ips, want), nil
	})
	for _, ip := range ips {
		body, err := scrape(t.Context(), net.JoinHostPort(ip, port), path)
		if err != nil {
			t.Fatalf("scrape %s%s through the metrics Service's endpoint: %v", ip, path, err)
		}
		if !hasSample(body, "cnpg_collector_up") {
			t.Errorf("%s%s served no cnpg_collector_up sample:\n%.2000s", ip, path, body)
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

// scrape GETs path from addr inside the node's network namespace.
func scrape(ctx context.Context, addr, path string) (string, error) {
	client := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{
		DialContext: func(context.Context, string, string) (net.Conn, error) { return theNode.Dial(addr) },
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+path, nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
	if err != nil {
		return "", err
	}
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("%s: %.500s", resp.Status, b)
	}
	return string(b), nil
}

// hasSample: the exposition text has a sample of metric (not only its
// HELP or TYPE line).
func hasSample(body, metric string) bool {
	sc := bufio.NewScanner(strings.NewReader(body))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		l := sc.Text()
		if strings.HasPrefix(l, metric+" ") || strings.HasPrefix(l, metric+"{") {
			return true
		}
	}
	return false
}
