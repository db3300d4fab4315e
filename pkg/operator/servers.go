package operator

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"k8s.io/klog/v2"
)

// health is the state /healthz and /readyz report.
type health struct {
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
	if !h.synced.Load() {
		http.Error(w, "caches not synced", http.StatusServiceUnavailable)
		return
	}
	fmt.Fprintln(w, "ok")
}

// serve runs an HTTP server on addr until ctx ends. It returns the bound
// address (useful with port 0) once listening.
func serve(ctx context.Context, addr string, handler http.Handler) (string, error) {
	if addr == "" || addr == "0" {
		return "", nil
	}
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return "", fmt.Errorf("listen on %s: %w", addr, err)
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

func metricsHandler(reg *prometheus.Registry) http.Handler {
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(reg, promhttp.HandlerOpts{Registry: reg}))
	return mux
}

func healthHandler(h *health) http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/healthz", h.healthz)
	mux.HandleFunc("/readyz", h.readyz)
	return mux
}
