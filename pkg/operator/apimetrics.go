package operator

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	clientmetrics "k8s.io/client-go/tools/metrics"
)

// apiRequests counts the operator's own API requests by verb and
// resource: the frugality figures (writes per converged object, zero
// writes on resync) are read from it.
// Where a request's time goes is split in two: the wait for the client's
// rate limiter (--kube-api-qps/--kube-api-burst) and the round trip to the
// API server; a pass slow for the first wants more QPS, one slow for the
// second a less loaded API server.
type apiRequests struct {
	counter  *prometheus.CounterVec
	duration *prometheus.HistogramVec
}

// latencyBuckets span a quick loopback answer to a saturated client.
var latencyBuckets = []float64{0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10}

func newAPIRequests(reg prometheus.Registerer) *apiRequests {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "setpoint_api_requests_total",
		Help: "Requests the operator sent to the Kubernetes API server, by verb and resource.",
	}, []string{"verb", "resource", "code"})
	d := prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "setpoint_api_request_duration_seconds",
		Help:    "Round trip of the operator's API requests (watches until their response headers), by verb.",
		Buckets: latencyBuckets,
	}, []string{"verb"})
	wait := prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "setpoint_api_rate_limiter_wait_seconds",
		Help:    "How long requests waited for the client's rate limiter (--kube-api-qps, --kube-api-burst).",
		Buckets: latencyBuckets,
	})
	reg.MustRegister(c, d, wait)
	// client-go reports the rate limiter's wait through a process-wide
	// hook, registered once: a second operator in the same process (tests)
	// keeps the first one's.
	clientmetrics.Register(clientmetrics.RegisterOpts{RateLimiterLatency: rateLimiterWait{wait}})
	return &apiRequests{counter: c, duration: d}
}

type rateLimiterWait struct{ h prometheus.Histogram }

func (w rateLimiterWait) Observe(_ context.Context, _ string, _ url.URL, latency time.Duration) {
	w.h.Observe(latency.Seconds())
}

// wrap is a rest.Config WrapTransport.
func (a *apiRequests) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		start := time.Now()
		resp, err := rt.RoundTrip(req)
		code := "error"
		if resp != nil {
			code = http.StatusText(resp.StatusCode)
		}
		verb, resource := ClassifyRequest(req)
		a.counter.WithLabelValues(verb, resource, code).Inc()
		a.duration.WithLabelValues(verb).Observe(time.Since(start).Seconds())
		return resp, err
	})
}

type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// ClassifyRequest turns a request into Kubernetes' verb and resource[/subresource]
// from its method and path (/api/v1/namespaces/ns/secrets/name/status,
// /apis/group/version/resource, ...).
func ClassifyRequest(req *http.Request) (verb, resource string) {
	parts := strings.Split(strings.Trim(req.URL.Path, "/"), "/")
	switch {
	case len(parts) >= 2 && parts[0] == "api":
		parts = parts[2:]
	case len(parts) >= 3 && parts[0] == "apis":
		parts = parts[3:]
	default:
		return strings.ToLower(req.Method), "nonresource"
	}
	if len(parts) == 0 || parts[0] == "" {
		// Discovery (/api/v1, /apis/group/version): no resource, no RBAC rule.
		return strings.ToLower(req.Method), "nonresource"
	}
	if len(parts) >= 2 && parts[0] == "namespaces" && len(parts) > 2 {
		parts = parts[2:]
	}
	named := len(parts) >= 2
	if len(parts) > 0 {
		resource = parts[0]
	}
	if len(parts) >= 3 {
		resource += "/" + parts[2]
	}
	switch req.Method {
	case http.MethodGet:
		switch {
		case req.URL.Query().Get("watch") == "true":
			verb = "watch"
		case named:
			verb = "get"
		default:
			verb = "list"
		}
	case http.MethodPost:
		verb = "create"
	case http.MethodPut:
		verb = "update"
	case http.MethodPatch:
		verb = "patch"
		if strings.Contains(req.Header.Get("Content-Type"), "apply-patch") {
			verb = "apply"
		}
	case http.MethodDelete:
		verb = "delete"
	default:
		verb = strings.ToLower(req.Method)
	}
	return verb, resource
}
