package main

import (
	"fmt"
	"sort"
	"time"
)

// A cluster's readiness in four moments, at light load and under the
// burst alike (issue 46): created → its CNPG Cluster applied (first seen
// by the informer: setpoint's share before CNPG starts) → CNPG healthy
// (the stand-in's share) → PostgresCluster Ready (setpoint's share after
// CNPG, but for the monitor role, which CNPG applies once the Cluster is
// up: the last span is also read from the later of healthy and that role
// applied). Which span grows under the burst says whose time it is.

// clusterSpans are, per cluster seen at all four moments, the time between
// consecutive ones; each sorted.
type clusterSpans struct {
	n                                 int
	createToApplied, appliedToHealthy []time.Duration
	healthyToReady, createToReady     []time.Duration
	// afterCNPG: from the later of CNPG's healthy and its monitor role
	// applied to Ready, the operator's own share after CNPG's (the
	// stand-in applies the monitor role once the Cluster is up, and the
	// pass that calls the cluster Ready checks Postgres as that role).
	afterCNPG []time.Duration
}

// markCreated records the moment the bench created name.
func (t *lightTrack) markCreated(name string, at time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.created[name] = at
}

// spans measures every cluster seen created, applied, healthy and Ready.
func (t *lightTrack) spans() clusterSpans {
	t.mu.Lock()
	defer t.mu.Unlock()
	var s clusterSpans
	for name, c := range t.created {
		a, okA := t.applied[name]
		h, okH := t.healthy[name]
		r, okR := t.ready[name]
		if !okA || !okH || !okR {
			continue
		}
		s.n++
		s.createToApplied = append(s.createToApplied, a.Sub(c))
		s.appliedToHealthy = append(s.appliedToHealthy, h.Sub(a))
		s.healthyToReady = append(s.healthyToReady, r.Sub(h))
		s.createToReady = append(s.createToReady, r.Sub(c))
		if m, ok := t.monitor[name]; ok {
			s.afterCNPG = append(s.afterCNPG, r.Sub(maxTime(h, m)))
		}
	}
	for _, d := range [][]time.Duration{s.createToApplied, s.appliedToHealthy, s.healthyToReady, s.createToReady, s.afterCNPG} {
		sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	}
	return s
}

// spanFigures adds p50 and p99 of each span under prefix
// ("cluster_" for the burst, "light_" at light load).
func spanFigures(fig map[string]float64, prefix string, s clusterSpans) {
	if s.n == 0 {
		return
	}
	for name, d := range map[string][]time.Duration{
		"create_to_cnpg_applied": s.createToApplied, "cnpg_applied_to_healthy": s.appliedToHealthy,
		"healthy_to_ready": s.healthyToReady, "create_to_ready": s.createToReady,
		"cnpg_done_to_ready": s.afterCNPG,
	} {
		if len(d) == 0 {
			continue
		}
		fig[prefix+name+"_p50_s"] = pct(d, 0.50)
		fig[prefix+name+"_p99_s"] = pct(d, 0.99)
	}
}

// slowest returns the timelines of the n clusters slowest from CNPG
// healthy to Ready, slowest first: under the burst, where that time goes.
func (t *lightTrack) slowest(n int) []string {
	t.mu.Lock()
	type late struct {
		name string
		at   time.Time
		d    time.Duration
	}
	var all []late
	for name, h := range t.healthy {
		if r, ok := t.ready[name]; ok {
			all = append(all, late{name, h, r.Sub(h)})
		}
	}
	t.mu.Unlock()
	sort.Slice(all, func(i, j int) bool { return all[i].d > all[j].d })
	var out []string
	for _, l := range all[:min(n, len(all))] {
		// The clock time of healthy finds the cluster's passes in the
		// operator's log (-operator-flag=-v=4).
		out = append(out, fmt.Sprintf("%s (healthy at %s, → Ready %.2fs)", t.timeline(l.name), l.at.Format("15:04:05.000"), l.d.Seconds()))
	}
	return out
}
