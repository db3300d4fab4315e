package e2e_test

import (
	"context"
	"crypto/tls"
	"github.com/setpoint-dev/setpoint/test/testkit"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// scrapeMetrics GETs url, with a bearer token when token is set. The
// operator's certificate is self-signed, as a Prometheus scraping with
// insecureSkipVerify would accept it.
func scrapeMetrics(ctx context.Context, url, token string) (int, string, error) {
	client := &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{
		TLSClientConfig: &tls.Config{InsecureSkipVerify: true}, //nolint:gosec // self-signed serving certificate
	}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body), err
}

// /metrics over HTTPS: no token 401, a token without the role 403, a
// ServiceAccount bound to the shipped metrics-reader role 200.
func TestMetricsAuthorization(t *testing.T) {
	applyManifests(t, "../../manifests/rbac")
	ns := kit.Namespace(t)
	op := startOperator(t, "metrics-op", "--leader-elect=false", "--namespace", ns, "--metrics-secure=true")
	url := "https://" + op.metricsAddr + "/metrics"
	reader := kit.MetricsReaderToken(t, ns)
	stranger := kit.ServiceAccountToken(t, ns, "stranger")

	for _, c := range []struct {
		who, token string
		want       int
	}{
		{"no token", "", http.StatusUnauthorized},
		{"a forged token", "not-a-token", http.StatusUnauthorized},
		{"a ServiceAccount without the role", stranger, http.StatusForbidden},
		{"a ServiceAccount bound to " + testkit.MetricsReaderRole, reader, http.StatusOK},
	} {
		code, body, err := scrapeMetrics(t.Context(), url, c.token)
		if err != nil {
			t.Fatalf("%s: %v", c.who, err)
		}
		if code != c.want {
			t.Errorf("%s: status %d, want %d: %s", c.who, code, c.want, body)
		}
		if code == http.StatusOK && !strings.Contains(body, "setpoint_api_requests_total") {
			t.Errorf("%s: 200 without the operator's metrics", c.who)
		}
		if code != http.StatusOK && strings.Contains(body, "setpoint_") {
			t.Errorf("%s: metrics leaked with status %d", c.who, code)
		}
	}
	// Plain HTTP to the HTTPS port is refused, not served.
	if code, _, err := scrapeMetrics(t.Context(), "http://"+op.metricsAddr+"/metrics", ""); err == nil && code == http.StatusOK {
		t.Errorf("plain HTTP scrape answered 200")
	}
}
