package main

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"text/tabwriter"
)

// figureDef is one row of the table.
type figureDef struct {
	key, label, unit, bar string
}

var figureDefs = []figureDef{
	{"", "Convergence", "", ""},
	{"convergence_wall_s", "operator: apply → all Ready (wall)", "s", "≤ 1.5 × lower bound"},
	{"lower_bound_wall_s", "lower bound: same writes + SQL, plain loop (wall)", "s", ""},
	{"settle_before_lower_bound_s", "  before it: the operator's dirty pages written back (sync)", "s", ""},
	{"ratio_operator_over_lower_bound", "ratio operator / lower bound", "×", "≤ 1.5"},
	{"object_ready_p50_s", "apply → Ready per object, p50", "s", ""},
	{"object_ready_p99_s", "apply → Ready per object, p99", "s", ""},
	{"cluster_ready_p50_s", "  PostgresCluster p50", "s", ""},
	{"cluster_ready_p99_s", "  PostgresCluster p99", "s", ""},
	{"cluster_create_to_cnpg_applied_p50_s", "  create → CNPG Cluster applied p50 (setpoint's first pass)", "s", ""},
	{"cluster_create_to_cnpg_applied_p99_s", "  create → CNPG Cluster applied p99", "s", ""},
	{"cluster_cnpg_applied_to_healthy_p50_s", "  CNPG Cluster applied → CNPG healthy p50 (stand-in)", "s", ""},
	{"cluster_cnpg_applied_to_healthy_p99_s", "  CNPG Cluster applied → CNPG healthy p99", "s", ""},
	{"cluster_healthy_to_ready_p50_s", "  CNPG Cluster healthy → PostgresCluster Ready p50", "s", "≤ 0.5"},
	{"cluster_healthy_to_ready_p99_s", "  CNPG Cluster healthy → PostgresCluster Ready p99", "s", ""},
	{"cluster_cnpg_done_to_ready_p50_s", "  CNPG healthy and the monitor role applied (stand-in) → Ready p50", "s", ""},
	{"cluster_cnpg_done_to_ready_p99_s", "  CNPG healthy and the monitor role applied → Ready p99", "s", ""},
	{"database_ready_p50_s", "  PostgresDatabase p50", "s", ""},
	{"database_ready_p99_s", "  PostgresDatabase p99", "s", ""},
	{"", "API requests and SQL (until all Ready)", "", ""},
	{"op_api_requests", "operator API requests, total", "", ""},
	{"op_api_requests_per_s", "operator API request rate", "req/s", "(client limit: -kube-api-qps)"},
	{"op_api_writes_per_object", "operator API writes per object", "", "= lower bound's"},
	{"lb_api_writes_per_object", "lower bound API writes per object", "", ""},
	{"op_events_per_object", "  of which Events (create/patch events) per object", "", "transitions only"},
	{"status_writes_per_cluster", "status writes per PostgresCluster", "", "≤ 1 per real state change"},
	{"status_writes_per_database", "status writes per PostgresDatabase", "", "≤ 1 per real state change"},
	{"op_sql_statements_per_database", "operator SQL statements per database", "", ""},
	{"lb_sql_statements_per_database", "lower bound SQL statements per database (14, incl. CNPG's 5; + the clusters' 2 spread over them)", "", ""},
	{"op_pg_connections_per_database", "operator Postgres connections per database", "", ""},
	{"reconciles_per_cluster", "reconciles per PostgresCluster", "", ""},
	{"reconciles_per_database", "reconciles per PostgresDatabase", "", ""},
	{"reconciles_per_database_success", "  of which success (the pass found it Ready)", "", ""},
	{"reconciles_per_database_wait", "  of which wait (on its cluster or CNPG)", "", ""},
	{"reconciles_per_database_retry", "  of which retry (an error, backoff)", "", ""},
	{"queue_wait_p50_cluster_s", "queue wait p50, postgrescluster", "s", ""},
	{"queue_wait_p99_cluster_s", "queue wait p99, postgrescluster", "s", "< 1"},
	{"api_request_p50_s", "API request round trip p50", "s", ""},
	{"api_request_p99_s", "API request round trip p99", "s", ""},
	{"api_rate_limiter_wait_mean_s", "wait for the client rate limiter, mean per request", "s", ""},
	{"api_rate_limiter_wait_p99_s", "wait for the client rate limiter, p99", "s", ""},
	{"queue_wait_p50_database_s", "queue wait p50, postgresdatabase", "s", ""},
	{"workers_busy_share_database", "database workers busy (share of workers × wall)", "", ""},
	{"pass_time_mean_database_s", "database pass, mean time", "s", ""},
	{"workers_busy_share_cluster", "cluster workers busy (share of workers × wall)", "", ""},
	{"pass_time_mean_cluster_s", "cluster pass, mean time", "s", ""},
	{"queue_wait_p99_database_s", "queue wait p99, postgresdatabase", "s", "< 1"},
	{"op_cpu_convergence_s", "operator CPU until all Ready", "s", ""},
	{"", "Idle cost: one full resync after convergence", "", ""},
	{"idle_window_s", "window (from convergence + lower bound to resync done)", "s", ""},
	{"idle_reconciles", "reconciles in the window", "", "≥ objects"},
	{"idle_api_writes", "API writes", "", "0"},
	{"idle_api_requests", "API requests (all verbs)", "", ""},
	{"idle_sql_statements", "SQL statements", "", "0"},
	{"idle_pg_connections", "Postgres connections", "", "0"},
	{"idle_cpu_s", "operator CPU in the window", "s", "≈ 0"},
	{"", "Postgres health collector on the converged clusters (nothing changes in Postgres; a fresh operator, the only phase with the collector on)", "", ""},
	{"collector_clusters", "clusters sampled", "", ""},
	{"collector_warm_up_s", "warm-up: start until every cluster sampled once", "s", "≈ 1 interval"},
	{"collector_warm_up_writes_per_cluster", "  API writes per cluster in the warm-up (first record of status.postgres)", "", ""},
	{"collector_window_s", "window (-collector-rounds samples of every cluster)", "s", ""},
	{"collector_samples_per_min", "samples", "/min", "clusters × 60 s / interval"},
	{"collector_connections_per_min", "Postgres connections", "/min", "= samples"},
	{"collector_statements_per_min", "SQL statements", "/min", "= samples"},
	{"collector_failed_samples", "failed samples", "", "0"},
	{"collector_sample_p50_s", "one sample (connect + statement) p50", "s", ""},
	{"collector_sample_p99_s", "one sample (connect + statement) p99", "s", ""},
	{"collector_cpu_s_per_min", "operator CPU (collector and any resync)", "s/min", ""},
	{"collector_cpu_ms_per_sample", "  per sample", "ms", ""},
	{"collector_api_writes", "API writes", "", "0"},
	{"collector_edges", "edges (passes the collector woke)", "", "0"},
	{"collector_reconciles", "cluster passes in the window (resyncs included)", "", ""},
	{"", "Latency: a steady stream of new PostgresDatabases on the Ready clusters, and the lower bound's on its own, interleaved", "", ""},
	{"stream_databases", "databases in each stream (-stream-rate × -stream-duration)", "", ""},
	{"settle_before_stream_s", "before it: dirty pages written back (sync)", "s", ""},
	{"mark_create_database_s", "machine mark: one CREATE DATABASE on the shared server, before the stream (median of 3)", "s", ""},
	{"mark_api_round_trip_p50_s", "machine mark: API round trip p50 during the stream (the bench's GET of a namespace, 4/s)", "s", ""},
	{"mark_api_round_trip_p99_s", "machine mark: API round trip p99 during the stream", "s", ""},
	{"mark_api_round_trip_failures", "  failed probe reads", "", "0"},
	{"stream_ready_p50_s", "operator: apply → Ready p50", "s", ""},
	{"stream_ready_p99_s", "operator: apply → Ready p99", "s", ""},
	{"stream_ready_max_s", "operator: apply → Ready max", "s", ""},
	{"floor_stream_places", "floor's places (-floor-places; else the operator's database workers)", "", ""},
	{"floor_stream_ready_p50_s", "floor (lower bound's stream): apply → Ready p50", "s", ""},
	{"floor_stream_ready_p99_s", "floor (lower bound's stream): apply → Ready p99", "s", ""},
	{"floor_stream_ready_max_s", "floor (lower bound's stream): apply → Ready max", "s", ""},
	{"stream_ratio_p50", "ratio operator / floor, p50", "×", "≤ 1.25"},
	{"stream_ratio_p99", "ratio operator / floor, p99", "×", "≤ 1.5"},
	{"stream_api_writes_per_database", "API writes per database (all objects)", "", ""},
	{"stream_status_writes_per_database", "status writes per database", "", "1"},
	{"stream_events_per_database", "Events per database", "", ""},
	{"stream_segments", "segments of the stream (20 s of arrivals each, drained before the next)", "", ""},
	{"stream_segments_with_resync", "  of which a resync fell in (in both streams; left out of the passes and queue wait below)", "", ""},
	{"stream_passes_per_database", "database passes per stream database, all (segments without a resync)", "", ""},
	{"stream_passes_per_database_success", "  of which success", "", ""},
	{"stream_passes_per_database_wait", "  of which wait (on its cluster or CNPG)", "", ""},
	{"stream_passes_per_database_retry", "  of which retry (an error, backoff)", "", ""},
	{"stream_passes_per_database_terminal", "  of which terminal", "", ""},
	{"stream_passes_per_database_failed", "  of which failed", "", ""},
	{"stream_passes_per_database_panic", "  of which panic", "", ""},
	{"stream_critical_passes_per_database", "database passes on a stream database's critical path (started between its create and its Ready; from the -v=4 log)", "", "≤ 3"},
	{"stream_critical_passes_per_database_success", "  of which success", "", ""},
	{"stream_critical_passes_per_database_wait", "  of which wait (on its cluster or CNPG)", "", ""},
	{"stream_critical_passes_per_database_retry", "  of which retry (an error, backoff)", "", ""},
	{"stream_critical_passes_per_database_terminal", "  of which terminal", "", ""},
	{"stream_critical_passes_per_database_failed", "  of which failed", "", ""},
	{"stream_critical_passes_per_database_panic", "  of which panic", "", ""},
	{"stream_queue_wait_p50_database_s", "queue wait p50, postgresdatabase (segments without a resync)", "s", ""},
	{"stream_queue_wait_p99_database_s", "queue wait p99, postgresdatabase (segments without a resync)", "s", "< 1"},
	{"stream_op_api_request_p50_s", "operator's API request round trip p50 in the window", "s", ""},
	{"", "Light load: PostgresClusters one at a time on an idle operator", "", ""},
	{"light_clusters", "clusters", "", ""},
	{"light_create_to_healthy_p50_s", "create → CNPG \"Cluster in healthy state\" p50", "s", ""},
	{"light_create_to_cnpg_applied_p50_s", "  create → CNPG Cluster applied p50 (setpoint's first pass)", "s", ""},
	{"light_create_to_cnpg_applied_p99_s", "  create → CNPG Cluster applied p99", "s", ""},
	{"light_cnpg_applied_to_healthy_p50_s", "  CNPG Cluster applied → CNPG healthy p50 (stand-in)", "s", ""},
	{"light_cnpg_applied_to_healthy_p99_s", "  CNPG Cluster applied → CNPG healthy p99", "s", ""},
	{"light_healthy_to_ready_p50_s", "CNPG healthy → PostgresCluster Ready p50", "s", "≤ 0.5"},
	{"light_healthy_to_ready_p99_s", "CNPG healthy → PostgresCluster Ready p99", "s", "≤ 0.5"},
	{"light_healthy_to_ready_max_s", "CNPG healthy → PostgresCluster Ready max", "s", ""},
	{"light_cnpg_done_to_ready_p50_s", "CNPG healthy and the monitor role applied (stand-in) → Ready p50", "s", ""},
	{"light_cnpg_done_to_ready_p99_s", "CNPG healthy and the monitor role applied → Ready p99", "s", ""},
	{"light_status_writes_per_cluster", "status writes per cluster", "", ""},
	{"light_api_writes_per_cluster", "API writes per cluster (all objects)", "", ""},
	{"", "Memory", "", ""},
	{"op_rss_at_convergence_mb", "RSS when all Ready", "MiB", "≤ 64"},
	{"rss_end_mb", "RSS at the end", "MiB", "≤ 64"},
	{"heap_end_mb", "Go heap in use at the end", "MiB", ""},
	{"ready_rss_anon_mb", "  when all Ready: anonymous (heap, stacks, runtime)", "MiB", ""},
	{"ready_rss_file_mb", "  when all Ready: file pages (the binary's code and data)", "MiB", ""},
	{"ready_anon_over_heap_spans", "  when all Ready: anonymous / heap spans in use", "", "≤ 1.5"},
	{"ready_anon_over_heap_objects", "  when all Ready: anonymous / heap objects", "", ""},
	{"end_rss_anon_mb", "  at the end: anonymous (heap, stacks, runtime)", "MiB", ""},
	{"end_rss_file_mb", "  at the end: file pages (the binary's code and data)", "MiB", ""},
	{"end_anon_over_heap_spans", "  at the end: anonymous / heap spans in use", "", "≤ 1.5"},
	{"end_anon_over_heap_objects", "  at the end: anonymous / heap objects", "", ""},
	{"end_heap_inuse_mb", "  at the end: heap spans in use", "MiB", ""},
	{"end_heap_idle_kept_mb", "  at the end: freed heap not yet returned to the OS", "MiB", ""},
	{"end_heap_goal_mb", "  at the end: heap goal of the next GC", "MiB", ""},
	{"end_runtime_other_mb", "  at the end: runtime besides the heap (stacks, GC metadata)", "MiB", ""},
	{"end_stack_inuse_mb", "    of which goroutine stacks", "MiB", ""},
	{"end_gc_metadata_mb", "    of which GC metadata", "MiB", ""},
	{"end_spans_mb", "    of which span and cache structures", "MiB", ""},
	{"end_runtime_misc_mb", "    of which other runtime (profiling buckets, timers, ...)", "MiB", ""},
	{"end_goroutines", "  at the end: goroutines", "", ""},
	{"rss_idle_mb", "RSS idle (freed memory returned after the resync)", "MiB", "≤ 64"},
	{"idle_heap_objects_mb", "Go heap in use, idle", "MiB", ""},
	{"idle_rss_anon_mb", "  idle: anonymous (heap, stacks, runtime)", "MiB", ""},
	{"idle_heap_inuse_mb", "  idle: heap spans in use", "MiB", ""},
	{"idle_heap_idle_kept_mb", "  idle: freed heap not yet returned to the OS", "MiB", ""},
	{"idle_runtime_other_mb", "  idle: runtime besides the heap", "MiB", ""},
	{"idle_anon_over_heap_spans", "  idle: anonymous / heap spans in use", "", "≤ 1.5"},
	{"idle_anon_over_heap_objects", "  idle: anonymous / heap objects", "", ""},
	{"memory_returns_end", "  times freed memory was returned to the OS so far", "", ""},
	{"op_gc_cycles_convergence", "GC cycles until all Ready", "", ""},
	{"reconciles_total_per_object_end", "reconciles per object at the end", "", ""},
	{"", "Object size at the end (compact JSON as the API server holds it; per kind below)", "", ""},
	{"largest_object_bytes", "largest object setpoint writes (managedFields included)", "B", "constant in databases per cluster (limit ≈ 1.5 MiB)"},
	{"largest_object_bytes_no_managed_fields", "  the same object without managedFields", "B", ""},
	{"object_size_databases_per_cluster", "  PostgresDatabases on its busiest cluster then", "", ""},
	{"", "Leader failover (2 replicas, lease 15s/10s/2s)", "", ""},
	{"failover_after_sigkill_s", "SIGKILL leader → first reconcile by the other", "s", "≤ 17"},
	{"failover_after_sigterm_s", "SIGTERM leader → first reconcile by the other", "s", "< 1"},
	{"sigterm_to_exit_s", "SIGTERM → old leader exited", "s", ""},
}

type stat struct {
	Median float64   `json:"median"`
	Min    float64   `json:"min"`
	Max    float64   `json:"max"`
	Values []float64 `json:"values"`
}

func summarize(vs []float64) stat {
	s := append([]float64(nil), vs...)
	sort.Float64s(s)
	st := stat{Values: vs, Min: s[0], Max: s[len(s)-1]}
	if n := len(s); n%2 == 1 {
		st.Median = s[n/2]
	} else {
		st.Median = (s[n/2-1] + s[n/2]) / 2
	}
	return st
}

// summarizeAll is, per figure, the median and spread of its values over
// figs (repetitions, or runs); a figure missing from one is left out there.
func summarizeAll(figs []map[string]float64) map[string]stat {
	keys := map[string]bool{}
	for _, f := range figs {
		for k := range f {
			keys[k] = true
		}
	}
	out := map[string]stat{}
	for k := range keys {
		var vs []float64
		for _, f := range figs {
			if v, ok := f[k]; ok {
				vs = append(vs, v)
			}
		}
		out[k] = summarize(vs)
	}
	return out
}

type apiRow struct {
	Verb     string  `json:"verb"`
	Resource string  `json:"resource"`
	Operator stat    `json:"operator"`
	Lower    stat    `json:"lowerBound"`
	PerObj   float64 `json:"operatorPerObject"`
	LBPerObj float64 `json:"lowerBoundPerObject"`
}

type report struct {
	Meta       runMeta            `json:"meta"`
	Figures    map[string]stat    `json:"figures"`
	API        []apiRow           `json:"apiRequestsUntilReady"`
	IdleAPI    []apiRow           `json:"apiRequestsDuringResync"`
	APIErrors  map[string]float64 `json:"apiNon2xxResponses,omitempty"`
	ErrorLines int                `json:"operatorErrorLogLines"`
	ErrorLog   []string           `json:"operatorErrorLogSample,omitempty"`
	Light      []string           `json:"lightLoadTimelines,omitempty"`
	Stream     []string           `json:"latencyPhaseTimePerState,omitempty"`
	Converge   []string           `json:"convergenceTimePerState,omitempty"`
	Sizes      []string           `json:"largestObjectPerKind,omitempty"`
	objects    float64
}

func buildReport(m runMeta, f flags, reps []*repResult) *report {
	r := &report{Meta: m, APIErrors: map[string]float64{}, objects: float64(f.clusters * (1 + f.perDB))}
	figs := make([]map[string]float64, len(reps))
	for i, rep := range reps {
		figs[i] = rep.figures
	}
	r.Figures = summarizeAll(figs)
	r.API = apiTable(reps, func(x *repResult) map[string]float64 { return x.opAPI }, func(x *repResult) map[string]float64 { return x.lbAPI }, r.objects)
	r.IdleAPI = apiTable(reps, func(x *repResult) map[string]float64 { return x.idleAPI }, func(*repResult) map[string]float64 { return nil }, r.objects)
	for _, rep := range reps {
		for k, v := range rep.apiErrors {
			r.APIErrors[k] += v
		}
		r.ErrorLines += rep.nErrLines
		r.ErrorLog = append(r.ErrorLog, rep.errLines...)
		r.Light = append(r.Light, rep.lightTimelines...)
		r.Stream = append(r.Stream, rep.streamBreakdown...)
		r.Converge = append(r.Converge, rep.convBreakdown...)
		r.Sizes = append(r.Sizes, rep.objectSizes...)
	}
	return r
}

func apiTable(reps []*repResult, op, lb func(*repResult) map[string]float64, objects float64) []apiRow {
	keys := map[string]bool{}
	for _, rep := range reps {
		for k := range op(rep) {
			keys[k] = true
		}
		for k := range lb(rep) {
			keys[k] = true
		}
	}
	var rows []apiRow
	for k := range keys {
		var ov, lv []float64
		for _, rep := range reps {
			ov = append(ov, op(rep)[k])
			lv = append(lv, lb(rep)[k])
		}
		verb, res, _ := strings.Cut(k, " ")
		row := apiRow{Verb: verb, Resource: res, Operator: summarize(ov), Lower: summarize(lv)}
		row.PerObj, row.LBPerObj = row.Operator.Median/objects, row.Lower.Median/objects
		rows = append(rows, row)
	}
	sort.Slice(rows, func(i, j int) bool {
		wi, wj := writeVerbs[rows[i].Verb], writeVerbs[rows[j].Verb]
		if wi != wj {
			return wi
		}
		if rows[i].Resource != rows[j].Resource {
			return rows[i].Resource < rows[j].Resource
		}
		return rows[i].Verb < rows[j].Verb
	})
	return rows
}

func num(v float64) string {
	switch {
	case math.IsNaN(v):
		return "n/a"
	case v == math.Trunc(v) && math.Abs(v) < 1e9:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.3g", v)
	}
}

func (r *report) print(out io.Writer) {
	m := r.Meta
	fmt.Fprintf(out, "\nsetpoint bench — commit %s, %s, GOMAXPROCS %d (%d CPUs), %d repetition(s), %s\n",
		m.Commit, m.GoVersion, m.GOMAXPROCS, m.NumCPU, m.Reps, m.Date)
	fmt.Fprintf(out, "workload: %d PostgresClusters + %d PostgresDatabases (1 database each), CNPG stand-in in shared-backend mode\n",
		m.Clusters, m.Clusters*m.PerCluster)
	fmt.Fprintf(out, "settings: %s\n", m.Settings)
	fmt.Fprintf(out, "total run time %.0fs (operator build %.0fs)\n\n", m.TotalSeconds, m.BuildSeconds)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	spread := m.Reps > 1
	if spread {
		fmt.Fprintln(tw, "figure\tmedian\tmin–max\tunit\tbar")
	} else {
		fmt.Fprintln(tw, "figure\tvalue\tunit\tbar")
	}
	header := ""
	for _, d := range figureDefs {
		if d.key == "" {
			header = d.label // printed with the section's first figure
			continue
		}
		s, ok := r.Figures[d.key]
		if !ok {
			continue
		}
		if header != "" {
			fmt.Fprintf(tw, "%s\t\t\t\n", "— "+header)
			header = ""
		}
		if spread {
			fmt.Fprintf(tw, "%s\t%s\t%s–%s\t%s\t%s\n", d.label, num(s.Median), num(s.Min), num(s.Max), d.unit, d.bar)
		} else {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", d.label, num(s.Median), d.unit, d.bar)
		}
	}
	tw.Flush()

	fmt.Fprintf(out, "\nAPI requests until all Ready, by verb and resource (per object = / %.0f objects; medians)\n", r.objects)
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "verb\tresource\toperator\tper object\tlower bound\tper object")
	for _, a := range r.API {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", a.Verb, a.Resource, num(a.Operator.Median), num(a.PerObj), num(a.Lower.Median), num(a.LBPerObj))
	}
	tw.Flush()
	if len(r.IdleAPI) > 0 {
		fmt.Fprintln(out, "\nAPI requests during the idle resync window")
		tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "verb\tresource\toperator")
		for _, a := range r.IdleAPI {
			fmt.Fprintf(tw, "%s\t%s\t%s\n", a.Verb, a.Resource, num(a.Operator.Median))
		}
		tw.Flush()
	} else {
		fmt.Fprintln(out, "\nAPI requests during the idle resync window: none")
	}
	if len(r.Converge) > 0 {
		fmt.Fprintln(out, "\nConvergence: mean time per object in each state, apply → Ready (phase/first condition not True:reason)")
		for _, l := range r.Converge {
			fmt.Fprintf(out, "  %s\n", l)
		}
	}
	if len(r.Stream) > 0 {
		fmt.Fprintln(out, "\nLatency phase: mean time per database in each state, apply → Ready (phase/first condition not True:reason)")
		for _, l := range r.Stream {
			fmt.Fprintf(out, "  %s\n", l)
		}
	}
	if len(r.Light) > 0 {
		fmt.Fprintln(out, "\nLight load: each cluster's states, seconds relative to CNPG's \"Cluster in healthy state\" (phase/ProvisionerReady reason)")
		for _, l := range r.Light {
			fmt.Fprintf(out, "  %s\n", l)
		}
	}
	if len(r.Sizes) > 0 {
		fmt.Fprintln(out, "\nObject size at the end: the largest object of each kind setpoint writes, compact JSON as stored (managedFields included), largest first")
		for _, l := range r.Sizes {
			fmt.Fprintf(out, "  %s\n", l)
		}
	}
	if len(r.APIErrors) > 0 {
		fmt.Fprintln(out, "\nOperator API responses other than 2xx (whole run, summed over repetitions)")
		var ks []string
		for k := range r.APIErrors {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			fmt.Fprintf(out, "  %s: %s\n", k, num(r.APIErrors[k]))
		}
	}
	fmt.Fprintf(out, "\nOperator error-level log lines: %d\n", r.ErrorLines)
	for _, l := range r.ErrorLog {
		if len(l) > 300 {
			l = l[:300] + "…"
		}
		fmt.Fprintf(out, "  %s\n", l)
	}
}

// writeJSON writes the report without the figures that measured nothing
// (NaN, printed n/a): JSON has no NaN, and one would fail the whole file.
func (r *report) writeJSON(path string) error {
	out := *r
	out.Figures = map[string]stat{}
	for k, st := range r.Figures {
		if !slices.ContainsFunc(st.Values, math.IsNaN) && !math.IsNaN(st.Median) {
			out.Figures[k] = st
		}
	}
	return writeJSON(path, &out)
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
