package operator

import (
	"net/http"
	"strings"

	"github.com/prometheus/client_golang/prometheus"
)

// apiRequests counts the operator's own API requests by verb and
// resource: the frugality figures (writes per converged object, zero
// writes on resync) are read from it.
type apiRequests struct {
	counter *prometheus.CounterVec
}

func newAPIRequests(reg prometheus.Registerer) *apiRequests {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "setpoint_api_requests_total",
		Help: "Requests the operator sent to the Kubernetes API server, by verb and resource.",
	}, []string{"verb", "resource", "code"})
	reg.MustRegister(c)
	return &apiRequests{counter: c}
}

// wrap is a rest.Config WrapTransport.
func (a *apiRequests) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripper(func(req *http.Request) (*http.Response, error) {
		resp, err := rt.RoundTrip(req)
		code := "error"
		if resp != nil {
			code = http.StatusText(resp.StatusCode)
		}
		verb, resource := ClassifyRequest(req)
		a.counter.WithLabelValues(verb, resource, code).Inc()
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
