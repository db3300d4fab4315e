package operator

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"
)

// health is the state /healthz and /readyz report.
type health struct {
	// apis fails readiness while CloudNativePG's CRDs are not installed.
	apis *apiWatcher
	// leaderCheck fails when this replica leads but cannot renew its Lease.
	leaderCheck func(*http.Request) error
	// synced is set once the caches are synced (leader) or at start
	// (standby, which serves nothing else).
	synced atomic.Bool
}

func (h *health) healthz(w http.ResponseWriter, r *http.Request) {
	if h.leaderCheck != nil {
		if err := h.leaderCheck(r); err != nil {
			http.Error(w, "leader election: "+err.Error(), http.StatusInternalServerError)
			return
		}
	}
	fmt.Fprintln(w, "ok")
}

func (h *health) readyz(w http.ResponseWriter, _ *http.Request) {
	if h.apis != nil {
		installed, known, _ := h.apis.state()
		if !known {
			http.Error(w, "API discovery has not answered yet", http.StatusServiceUnavailable)
			return
		}
		if reason := installed.notReadyReason(); reason != "" {
			http.Error(w, reason, http.StatusServiceUnavailable)
			return
		}
	}
	if !h.synced.Load() {
		http.Error(w, "caches not synced", http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ok")
}

// serve runs an HTTP server on addr until ctx ends, over TLS when tlsCfg
// is set. It returns the bound address (useful with port 0) once listening.
func serve(ctx context.Context, addr string, handler http.Handler, tlsCfg *tls.Config) (string, error) {
	if addr == "" || addr == "0" {
		return "", nil
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listen on %s: %w", addr, err)
	}
	if tlsCfg != nil {
		l = tls.NewListener(l, tlsCfg)
	}
	srv := &http.Server{Handler: handler, ReadHeaderTimeout: 5 * time.Second}
	go func() {
		if err := srv.Serve(l); err != nil && !errors.Is(err, http.ErrServerClosed) {
			klog.FromContext(ctx).Error(err, "HTTP server stopped", "addr", l.Addr().String())
		}
	}()
	context.AfterFunc(ctx, func() {
		shutdownCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(shutdownCtx)
	})
	return l.Addr().String(), nil
}

// serveMetrics serves /metrics: over HTTPS with authentication and
// authorization delegated to the API server when cfg.MetricsSecure, in
// plain HTTP for local runs otherwise.
func serveMetrics(ctx context.Context, cfg Config, kube kubernetes.Interface, reg *prometheus.Registry) error {
	handler := metricsHandler(reg)
	var tlsCfg *tls.Config
	if cfg.MetricsSecure {
		var err error
		if tlsCfg, err = metricsTLSConfig(ctx, cfg.MetricsCertDir, certCheckInterval); err != nil {
			return err
		}
		handler = newDelegatedAuth(kube).wrap(handler)
	}
	addr, err := serve(ctx, cfg.MetricsAddr, handler, tlsCfg)
	if err != nil {
		return err
	}
	if addr != "" {
		klog.FromContext(ctx).Info("Serving metrics", "addr", addr, "secure", cfg.MetricsSecure)
	}
	return nil
}

// metricsHandler serves the registry uncompressed. A scrape is small (the
// controllers' and client's series, and ten gauges per PostgresCluster
// from the collector) and crosses the cluster network once every scrape
// interval, while the gzip writer the handler keeps between scrapes holds
// resident memory for the life of the process (measured in
// docs/benchmarks/history.md).
func metricsHandler(reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg, DisableCompression: true}))
	return mux
}

func healthHandler(h *health) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", h.healthz)
	mux.HandleFunc("/readyz", h.readyz)
	return mux
}
