package operator

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

func TestClassifyRequest(t *testing.T) {
	cases := []struct {
		method, path, ctype string
		verb, resource      string
	}{
		{"GET", "/api/v1/namespaces/ns/secrets/shop-superuser", "", "get", "secrets"},
		{"GET", "/api/v1/secrets?labelSelector=x", "", "list", "secrets"},
		{"GET", "/apis/postgres.setpoint.dev/v1alpha1/postgresclusters?watch=true", "", "watch", "postgresclusters"},
		{"PUT", "/apis/postgres.setpoint.dev/v1alpha1/namespaces/ns/postgresclusters/shop/status", "", "update", "postgresclusters/status"},
		{"PATCH", "/apis/postgresql.cnpg.io/v1/namespaces/ns/clusters/shop", "application/apply-patch+yaml", "apply", "clusters"},
		{"POST", "/api/v1/namespaces/ns/secrets", "", "create", "secrets"},
		{"DELETE", "/apis/postgresql.cnpg.io/v1/namespaces/ns/poolers/shop-pooler-rw", "", "delete", "poolers"},
		{"PUT", "/apis/coordination.k8s.io/v1/namespaces/setpoint-system/leases/setpoint-leader", "", "update", "leases"},
		{"GET", "/apis/postgres.setpoint.dev/v1alpha1/postgresclusterclasses/standard", "", "get", "postgresclusterclasses"},
		{"GET", "/apis/barmancloud.cnpg.io/v1", "", "get", "nonresource"},
		{"GET", "/api/v1", "", "get", "nonresource"},
		{"POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews", "", "create", "subjectaccessreviews"},
	}
	for _, c := range cases {
		u, _ := url.Parse(c.path)
		req := &http.Request{Method: c.method, URL: u, Header: http.Header{"Content-Type": {c.ctype}}}
		if v, r := ClassifyRequest(req); v != c.verb || r != c.resource {
			t.Errorf("%s %s = %s %s, want %s %s", c.method, c.path, v, r, c.verb, c.resource)
		}
	}
}

// A request is counted and its round trip observed, by verb.
func TestRequestDurationObserved(t *testing.T) {
	reg := prometheus.NewRegistry()
	a := newAPIRequests(reg)
	rt := a.wrap(roundTripper(func(*http.Request) (*http.Response, error) {
		return &http.Response{StatusCode: http.StatusOK, Body: http.NoBody}, nil
	}))
	u, _ := url.Parse("/api/v1/namespaces/ns/secrets")
	if _, err := rt.RoundTrip(&http.Request{Method: "POST", URL: u, Header: http.Header{}}); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(a.duration); n != 1 {
		t.Fatalf("duration series = %d, want 1 (verb create)", n)
	}
	if got := testutil.ToFloat64(a.counter.WithLabelValues("create", "secrets", "OK")); got != 1 {
		t.Errorf("create secrets counted %v times", got)
	}
}
