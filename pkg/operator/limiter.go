package operator

import (
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/pkg/throttle"
)

// withLimiter returns a copy of cfg whose client gets a rate limiter of its
// own with cfg's QPS and burst — as client-go would make — that serves
// urgent requests (a PostgresCluster's pass, see throttle.Urgent) first.
// A QPS of zero or less keeps client-go's handling of it.
func withLimiter(cfg *rest.Config) *rest.Config {
	out := rest.CopyConfig(cfg)
	if out.RateLimiter == nil && out.QPS > 0 {
		out.RateLimiter = throttle.New(out.QPS, out.Burst)
	}
	return out
}
