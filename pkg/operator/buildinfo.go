package operator

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/setpoint-dev/setpoint/pkg/version"
)

// newBuildInfo is the setpoint_build_info gauge: always 1, its labels say
// which build is running, so a dashboard can join any metric with the
// version that produced it.
func newBuildInfo(info version.Info) prometheus.Collector {
	g := prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "setpoint_build_info",
		Help: "A metric with a constant '1' value labeled by the version, commit and Go version setpoint was built from.",
		ConstLabels: prometheus.Labels{
			"version":   info.Version,
			"commit":    info.Commit,
			"goversion": info.GoVersion,
		},
	})
	g.Set(1)
	return g
}
