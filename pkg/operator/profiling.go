package operator

import (
	"net/http"
	"net/http/pprof"
)

// profilingHandler serves Go's runtime profiles (heap, CPU, goroutines)
// under /debug/pprof/. Off unless an address is given: profiles expose
// the process's internals, so bind it to loopback (or reach it with
// kubectl port-forward), never to the cluster network.
func profilingHandler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	return mux
}
