// Command bench measures setpoint at scale on the local control plane with
// the CNPG stand-in in shared-backend mode (one real Postgres server), and
// prints the figures of ../shared/design/measure.md: convergence of
// PostgresClusters and PostgresDatabases next to a lower bound measured in
// the same run, API requests per converged object, the idle cost of a full
// resync, memory, queue wait, leader failover, and the size of the largest
// object setpoint writes. It prints figures; it has no pass/fail
// thresholds.
//
//	go run ./test/bench [-clusters 100] [-databases-per-cluster 10] [-reps 1] [-runs 1] [-out bench.json]
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/test/cnpgsim"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

type flags struct {
	clusters        int
	perDB           int
	reps            int
	runs            int
	out             string
	resync          time.Duration
	timeout         time.Duration
	clusterWorkers  int
	databaseWorkers int
	qps             float64
	burst           int
	simWorkers      int
	simVerbosity    int
	creators        int
	failover        bool
	logDir          string
	streamRate      float64
	streamDuration  time.Duration
	floorPlaces     int
	passLog         bool
	lightClusters   int
	lightOwnServers bool
	curve           bool
	curveSizes      string
	// collectorInterval and collectorRounds: the collector cost phase.
	collectorInterval time.Duration
	collectorRounds   int
}

func main() {
	var f flags
	flag.IntVar(&f.clusters, "clusters", 100, "PostgresClusters per repetition.")
	flag.IntVar(&f.perDB, "databases-per-cluster", 10, "PostgresDatabases per PostgresCluster (one database each).")
	flag.IntVar(&f.reps, "reps", 1, "Repetitions; each uses fresh namespaces and a fresh operator process. Figures are medians with min–max.")
	flag.IntVar(&f.runs, "runs", 1, "Separate runs of the whole bench, each a process with its own control plane and Postgres server (make bench BENCH_RUNS=N); the figures are the runs' medians with their spread, each run's JSON is kept beside -out (NAME-runK.json).")
	flag.StringVar(&f.out, "out", "bench.json", "Where to write the figures as JSON; empty writes none.")
	flag.DurationVar(&f.resync, "resync-period", 60*time.Second, "The operator's --resync-period; the idle-cost phase waits out one period.")
	flag.DurationVar(&f.timeout, "converge-timeout", 12*time.Minute, "Give up on convergence after this long.")
	flag.IntVar(&f.clusterWorkers, "cluster-workers", 4, "The operator's --cluster-workers, and the lower bound's cluster concurrency.")
	flag.IntVar(&f.databaseWorkers, "database-workers", 8, "The operator's --database-workers, and the lower bound's database concurrency.")
	flag.Float64Var(&f.qps, "kube-api-qps", 50, "The operator's --kube-api-qps, and the lower bound's client QPS.")
	flag.IntVar(&f.burst, "kube-api-burst", 100, "The operator's --kube-api-burst, and the lower bound's client burst.")
	flag.IntVar(&f.simWorkers, "sim-workers", 8, "The CNPG stand-in's workers per kind.")
	flag.IntVar(&f.simVerbosity, "sim-v", 0, "The CNPG stand-in's log verbosity (its log is kept with -logs); 5 logs every sync with its duration.")
	flag.IntVar(&f.creators, "creators", 8, "Concurrent creates when applying the workload (both runs).")
	flag.BoolVar(&f.failover, "failover", true, "Measure leader failover (two replicas, default lease timings; ~45 s per repetition).")
	flag.StringVar(&f.logDir, "logs", "", "Keep the operators' and the stand-in's logs in this directory (default: a temporary directory, removed).")
	flag.Float64Var(&f.streamRate, "stream-rate", 5, "Latency phase: new PostgresDatabases per second on the Ready clusters.")
	flag.DurationVar(&f.streamDuration, "stream-duration", 60*time.Second, "Latency phase: how long the stream lasts; 0 skips the phase.")
	flag.IntVar(&f.floorPlaces, "floor-places", 0, "Latency phase: places (connections, workers) of the lower bound's stream; 0: the operator's -database-workers, shared with nothing else. More places make the floor the chain a new database cannot avoid rather than the operator's concurrency.")
	flag.BoolVar(&f.passLog, "pass-log", true, "Run the operators at --v=4, where every pass logs its outcome and length, to count the passes on each stream database's critical path from the log; false runs them at the default verbosity.")
	flag.IntVar(&f.lightClusters, "light-clusters", 20, "Light-load phase: PostgresClusters created one at a time (CNPG healthy → Ready); 0 skips it.")
	flag.BoolVar(&f.lightOwnServers, "light-own-servers", true, "Light-load phase: each cluster gets a Postgres server of its own (a second stand-in, a fresh operator in its own namespace), so CNPG's phases take a real server's time; false: the shared backend and the convergence phase's operator.")
	flag.BoolVar(&f.curve, "curve", false, "Run only the cost curve: the convergence phase at each of -curve-sizes, fresh operator each.")
	flag.StringVar(&f.curveSizes, "curve-sizes", "250,1000,4000", "Cost curve sizes in PostgresDatabases (clusters = size / -databases-per-cluster), increasing, ≥ 4× apart for a verdict worth reading.")
	flag.DurationVar(&f.collectorInterval, "collector-interval", time.Minute, "The operator's --postgres-sample-interval; shorter for a quick run.")
	flag.IntVar(&f.collectorRounds, "collector-rounds", 2, "Collector cost phase: sample every converged cluster this many times (≈ rounds × -collector-interval); 0 skips it.")
	flag.Func("operator-env", "KEY=VALUE added to every operator process's environment, e.g. GOGC=50 or GOMEMLIMIT=48MiB (repeatable); the lower bound runs in the bench's own process and is not affected.", func(v string) error {
		if !strings.Contains(v, "=") {
			return fmt.Errorf("want KEY=VALUE, got %q", v)
		}
		operatorEnv = append(operatorEnv, v)
		return nil
	})
	flag.Func("operator-flag", "A flag added to every operator process's command line, e.g. -operator-flag=-v=4 to log every pass's outcome (repeatable); the operator's logs are kept with -logs.", func(v string) error {
		operatorFlags = append(operatorFlags, v)
		return nil
	})
	flag.BoolVar(&heapProfiles, "heap-profiles", false, "Serve the operators' Go profiles and keep the convergence operator's heap profile (heap-rN.pprof with -logs); profiling costs the operator memory, so the memory figures are then not the shipped configuration's.")
	flag.Parse()

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	var err error
	if f.runs > 1 {
		err = runMany(ctx, f)
	} else {
		err = run(ctx, f)
	}
	stop()
	if err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

// operatorEnv is added to the environment of every operator the bench
// starts (-operator-env).
var operatorEnv []string

// operatorFlags are added to the command line of every operator the
// bench starts (-operator-flag).
var operatorFlags []string

// heapProfiles: the operators serve their Go profiles (-heap-profiles).
var heapProfiles bool

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s  %s\n", time.Now().Format("15:04:05"), fmt.Sprintf(format, args...))
}

func run(ctx context.Context, f flags) (err error) {
	began := time.Now()
	if f.clusters < 1 || f.perDB < 0 || f.reps < 1 {
		return errors.New("-clusters and -reps must be at least 1, -databases-per-cluster at least 0")
	}
	work, err := os.MkdirTemp("", "setpoint-bench-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	logDir := f.logDir
	if logDir == "" {
		logDir = filepath.Join(work, "logs")
	}
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return err
	}
	simLog, err := os.Create(filepath.Join(logDir, "cnpgsim.log"))
	if err != nil {
		return err
	}
	defer simLog.Close()
	klog.LogToStderr(false)
	klog.SetOutput(simLog)
	if err := setKlogVerbosity(f.simVerbosity); err != nil {
		return err
	}

	meta := collectMeta(f)
	logf("setpoint bench %s, %s, GOMAXPROCS %d, %d repetition(s) of %d clusters × %d databases",
		meta.Commit, meta.GoVersion, meta.GOMAXPROCS, f.reps, f.clusters, f.perDB)

	t := time.Now()
	bin, err := buildOperator(ctx, work)
	if err != nil {
		return err
	}
	meta.BuildSeconds = time.Since(t).Seconds()
	logf("built the operator in %.1fs", meta.BuildSeconds)

	t = time.Now()
	env, err := envtest.Start(ctx, envtest.Options{})
	if err != nil {
		return fmt.Errorf("control plane: %w", err)
	}
	defer func() {
		logf("tearing down")
		env.Stop()
	}()
	logf("control plane up in %.1fs", time.Since(t).Seconds())

	kube, err := kubernetes.NewForConfig(env.Config)
	if err != nil {
		return err
	}
	pg, err := versioned.NewForConfig(env.Config)
	if err != nil {
		return err
	}
	hostMap := filepath.Join(work, "hostmap.json")
	// Only what the operator wrote: the lower bound's CNPG objects are
	// labelled otherwise and left alone.
	selector := "app.kubernetes.io/managed-by=setpoint"
	lightOwn := f.lightOwnServers && f.lightClusters > 0 && !f.curve
	if lightOwn {
		selector += "," + lightSelector("notin", f.lightClusters)
	}
	if err := startSim(env, cnpgsim.Options{HostMapFile: hostMap, SharedBackend: true, Workers: f.simWorkers, Selector: selector}); err != nil {
		return err
	}
	b := &bench{f: f, env: env, kube: kube, pg: pg, bin: bin, hostMap: hostMap, logDir: logDir}
	if lightOwn {
		// The light-load clusters get a server each, as with CNPG: their
		// CNPG Cluster goes through CNPG's phases at a real server's pace.
		b.lightHostMap = filepath.Join(work, "hostmap-light.json")
		if err := startSim(env, cnpgsim.Options{HostMapFile: b.lightHostMap, Workers: 2, FieldManager: "cnpgsim-light",
			Selector: "app.kubernetes.io/managed-by=setpoint," + lightSelector("in", f.lightClusters)}); err != nil {
			return err
		}
	}
	if err := ensureNamespace(ctx, kube, "setpoint-system"); err != nil {
		return err
	}

	if f.curve {
		return b.curveOnly(ctx, meta, began)
	}
	var reps []*repResult
	for rep := 1; rep <= f.reps; rep++ {
		r, err := b.rep(ctx, rep)
		if err != nil {
			if f.logDir == "" {
				dumpLogs(logDir)
			}
			return fmt.Errorf("repetition %d: %w", rep, err)
		}
		reps = append(reps, r)
	}
	meta.TotalSeconds = time.Since(began).Seconds()
	rep := buildReport(meta, f, reps)
	rep.print(os.Stdout)
	if f.out != "" {
		if err := rep.writeJSON(f.out); err != nil {
			return err
		}
		logf("wrote %s", f.out)
	}
	return nil
}

// startSim runs a CNPG stand-in until the environment stops.
func startSim(env *envtest.Environment, o cnpgsim.Options) error {
	sim, err := cnpgsim.New(env.Config, o)
	if err != nil {
		return fmt.Errorf("CNPG stand-in: %w", err)
	}
	simCtx, simCancel := context.WithCancel(context.Background())
	simDone := make(chan struct{})
	go func() {
		defer close(simDone)
		if err := sim.Run(simCtx); err != nil && simCtx.Err() == nil {
			logf("CNPG stand-in stopped: %v", err)
		}
	}()
	env.AddCleanup(func() { simCancel(); <-simDone })
	return nil
}

// dumpLogs prints the tail of every log before the temporary directory
// goes away.
func dumpLogs(dir string) {
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		fmt.Fprintf(os.Stderr, "---- last lines of %s\n%s\n", e.Name(), tail(p, 30))
	}
}

type runMeta struct {
	Commit       string  `json:"commit"`
	GoVersion    string  `json:"goVersion"`
	GOMAXPROCS   int     `json:"gomaxprocs"`
	NumCPU       int     `json:"numCPU"`
	Reps         int     `json:"repetitions"`
	Clusters     int     `json:"clusters"`
	PerCluster   int     `json:"databasesPerCluster"`
	BuildSeconds float64 `json:"operatorBuildSeconds"`
	TotalSeconds float64 `json:"totalSeconds"`
	Date         string  `json:"date"`
	Settings     string  `json:"settings"`
}

func collectMeta(f flags) runMeta {
	commit := "unknown"
	if out, err := exec.Command("git", "rev-parse", "--short", "HEAD").Output(); err == nil {
		commit = strings.TrimSpace(string(out))
		if st, err := exec.Command("git", "status", "--porcelain").Output(); err == nil && len(strings.TrimSpace(string(st))) > 0 {
			commit += "-dirty"
		}
	}
	return runMeta{
		Commit: commit, GoVersion: runtime.Version(), GOMAXPROCS: runtime.GOMAXPROCS(0), NumCPU: runtime.NumCPU(),
		Reps: f.reps, Clusters: f.clusters, PerCluster: f.perDB, Date: time.Now().UTC().Format(time.RFC3339),
		Settings: fmt.Sprintf("cluster-workers %d, database-workers %d, kube-api-qps %g/burst %d (operator and lower bound), resync %v, stand-in workers %d, operator environment %v, operator flags %v",
			f.clusterWorkers, f.databaseWorkers, f.qps, f.burst, f.resync, f.simWorkers, operatorEnv, operatorFlags),
	}
}

type bench struct {
	f       flags
	env     *envtest.Environment
	kube    kubernetes.Interface
	pg      versioned.Interface
	bin     string
	hostMap string
	logDir  string
	// lightHostMap, when set, is the host map of the stand-in that gives
	// each light-load cluster a server of its own.
	lightHostMap string
}

// repResult is everything one repetition measured.
type repResult struct {
	figures   map[string]float64
	opAPI     map[string]float64 // operator requests during convergence, "verb resource"
	lbAPI     map[string]float64
	idleAPI   map[string]float64
	apiErrors map[string]float64
	errLines  []string
	nErrLines int
	// lightTimelines: per light-load cluster, its phases relative to
	// CNPG's healthy moment.
	lightTimelines []string
	// streamBreakdown: mean time per stream database in each state.
	streamBreakdown []string
	// convBreakdown: mean time per object in each state during convergence.
	convBreakdown []string
	// objectSizes: per kind setpoint writes, its largest object at the end.
	objectSizes []string
}

func (b *bench) rep(ctx context.Context, rep int) (*repResult, error) {
	f := b.f
	res := &repResult{figures: map[string]float64{}}
	fig := res.figures
	w := workload{ns: fmt.Sprintf("bench-r%d", rep), class: "bench", clusters: f.clusters, perDB: f.perDB, prefix: fmt.Sprintf("r%d", rep)}
	if err := ensureNamespace(ctx, b.kube, w.ns); err != nil {
		return nil, err
	}
	if err := ensureClass(ctx, b.pg, w.class); err != nil {
		return nil, err
	}

	// 1. Convergence.
	op, err := b.startWatching(ctx, fmt.Sprintf("operator-r%d", rep), w.ns, b.hostMap, collectorOff)
	if err != nil {
		return nil, err
	}
	defer op.kill()
	sStart, err := op.scrape()
	if err != nil {
		return nil, err
	}
	ready := newReadiness(w.objects())
	ready.steps = map[string][]stateStep{}
	wctx, wcancel := context.WithCancel(ctx)
	defer wcancel()
	if err := watchReadiness(wctx, b.pg, w.ns, ready); err != nil {
		return nil, err
	}
	// CNPG's healthy moment of each cluster, to tell the stand-in's time
	// from the operator's under load.
	healthy := newLightTrack("c")
	if err := healthy.watch(wctx, b, w.ns); err != nil {
		return nil, err
	}
	roles := w.roleTrace()
	if err := roles.watch(wctx, b, w.ns); err != nil {
		return nil, err
	}
	logf("r%d: applying %d PostgresClusters and %d PostgresDatabases in %s", rep, w.clusters, w.clusters*w.perDB, w.ns)
	start, err := createAll(ctx, b.pg, w, f.creators, func(c created) {
		ready.markApplied(c.kind+"/"+c.name, c.at)
		if c.kind == "cluster" {
			healthy.markCreated(c.name, c.at)
		}
	})
	if err != nil {
		return nil, err
	}
	logf("r%d: applied in %.1fs", rep, time.Since(start).Seconds())
	if err := b.waitConverged(ctx, op, ready, start); err != nil {
		return nil, err
	}
	sConv, err := op.scrape()
	if err != nil {
		return nil, err
	}
	// The API table counts until the last Event is out too (see settle).
	sAPI, err := settle(ctx, op)
	if err != nil {
		return nil, err
	}
	wall := ready.lastReady().Sub(start)
	logf("r%d: all %d objects Ready in %.1fs", rep, w.objects(), wall.Seconds())
	fig["convergence_wall_s"] = wall.Seconds()
	cl, db := ready.latencies("cluster/"), ready.latencies("database/")
	all := append(append([]time.Duration{}, cl...), db...)
	sort.Slice(all, func(i, j int) bool { return all[i] < all[j] })
	fig["cluster_ready_p50_s"], fig["cluster_ready_p99_s"] = pct(cl, 0.50), pct(cl, 0.99)
	fig["database_ready_p50_s"], fig["database_ready_p99_s"] = pct(db, 0.50), pct(db, 0.99)
	fig["object_ready_p50_s"], fig["object_ready_p99_s"] = pct(all, 0.50), pct(all, 0.99)
	// Each cluster's create → CNPG Cluster applied → healthy → Ready
	// under the burst (clustertimeline.go), and where the slowest ones'
	// time after healthy went.
	spanFigures(fig, "cluster_", healthy.spans())
	res.convBreakdown = append(prefixed("PostgresCluster ", breakdown(ready.timeInStates("cluster/"), w.clusters)),
		prefixed("PostgresDatabase ", breakdown(ready.timeInStates("database/"), max(w.clusters*w.perDB, 1)))...)
	res.convBreakdown = append(res.convBreakdown, "PostgresClusters slowest from CNPG healthy to Ready (seconds relative to healthy; phase/ProvisionerReady reason):")
	res.convBreakdown = append(res.convBreakdown, prefixed("  ", healthy.slowest(3))...)
	if m := roles.milestones(ready); len(m) > 0 {
		res.convBreakdown = append(append(res.convBreakdown, "role and database hand-over, "+m[0]), prefixed("  ", m[1:])...)
	}

	res.opAPI = diffCounts(sStart.apiCounts(), sAPI.apiCounts())
	nObj, nClu, nDB := float64(w.objects()), float64(w.clusters), float64(w.clusters*w.perDB)
	fig["op_api_requests"] = sumAll(res.opAPI)
	fig["op_api_writes"] = sumWrites(res.opAPI)
	fig["op_api_writes_per_object"] = sumWrites(res.opAPI) / nObj
	fig["op_events_per_object"] = eventWrites(res.opAPI) / nObj
	fig["op_api_requests_per_s"] = sumAll(res.opAPI) / wall.Seconds()
	fig["status_writes_per_cluster"] = statusWrites(res.opAPI, "postgresclusters") / nClu
	if nDB > 0 {
		fig["status_writes_per_database"] = statusWrites(res.opAPI, "postgresdatabases") / nDB
		fig["op_sql_statements_per_database"] = (sConv.sum("setpoint_pipeline_statements_total") - sStart.sum("setpoint_pipeline_statements_total")) / nDB
		fig["op_pg_connections_per_database"] = (sConv.sum("setpoint_pipeline_connections_total") - sStart.sum("setpoint_pipeline_connections_total")) / nDB
		fig["reconciles_per_database"] = sConv.sum("setpoint_reconcile_total", "name", "postgresdatabase") / nDB
		// By outcome: a pass that waits (on CNPG, on its cluster) is not
		// one that does work, and a high count of either says where to look.
		for _, o := range []string{"success", "wait", "retry"} {
			fig["reconciles_per_database_"+o] = sConv.sum("setpoint_reconcile_total", "name", "postgresdatabase", "outcome", o) / nDB
		}
		fig["queue_wait_p99_database_s"] = quantile(0.99, sConv.histogram("workqueue_queue_duration_seconds", "name", "postgresdatabase"))
		fig["queue_wait_p50_database_s"] = quantile(0.50, sConv.histogram("workqueue_queue_duration_seconds", "name", "postgresdatabase"))
	}
	fig["reconciles_per_cluster"] = sConv.sum("setpoint_reconcile_total", "name", "postgrescluster") / nClu
	// How busy the workers were: a share near 1 means passes queued for a
	// free worker, not for an event.
	for queue, workers := range map[string]int{"database": f.databaseWorkers, "cluster": f.clusterWorkers} {
		busy := sConv.sum("workqueue_work_duration_seconds_sum", "name", "postgres"+queue) -
			sStart.sum("workqueue_work_duration_seconds_sum", "name", "postgres"+queue)
		passes := sConv.sum("workqueue_work_duration_seconds_count", "name", "postgres"+queue) -
			sStart.sum("workqueue_work_duration_seconds_count", "name", "postgres"+queue)
		fig["workers_busy_share_"+queue] = busy / (float64(workers) * wall.Seconds())
		fig["pass_time_mean_"+queue+"_s"] = busy / max(passes, 1)
	}
	fig["queue_wait_p99_cluster_s"] = quantile(0.99, sConv.histogram("workqueue_queue_duration_seconds", "name", "postgrescluster"))
	fig["queue_wait_p50_cluster_s"] = quantile(0.50, sConv.histogram("workqueue_queue_duration_seconds", "name", "postgrescluster"))
	// Where a request's time goes: the client's rate limiter, then the
	// round trip to the API server.
	fig["api_request_p50_s"] = quantile(0.50, sConv.histogram("setpoint_api_request_duration_seconds"))
	fig["api_request_p99_s"] = quantile(0.99, sConv.histogram("setpoint_api_request_duration_seconds"))
	waits := sConv.sum("setpoint_api_rate_limiter_wait_seconds_count") - sStart.sum("setpoint_api_rate_limiter_wait_seconds_count")
	fig["api_rate_limiter_wait_mean_s"] = (sConv.sum("setpoint_api_rate_limiter_wait_seconds_sum") - sStart.sum("setpoint_api_rate_limiter_wait_seconds_sum")) / max(waits, 1)
	fig["api_rate_limiter_wait_p99_s"] = quantile(0.99, sConv.histogram("setpoint_api_rate_limiter_wait_seconds"))
	fig["op_cpu_convergence_s"] = sConv.sum("process_cpu_seconds_total") - sStart.sum("process_cpu_seconds_total")
	fig["op_rss_at_convergence_mb"] = sConv.sum("process_resident_memory_bytes") / (1 << 20)
	fig["op_gc_cycles_convergence"] = sConv.sum("go_gc_duration_seconds_count") - sStart.sum("go_gc_duration_seconds_count")
	memoryFigures(fig, "ready_", sConv, op.cmd.Process.Pid)

	// 2. The lower bound, same run, same concurrency and client limits.
	ca, err := b.kube.CoreV1().Secrets(w.ns).Get(ctx, w.clusterName(0)+"-ca", metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("CA of the shared backend: %w", err)
	}
	lbW := workload{ns: fmt.Sprintf("lowerbound-r%d", rep), class: "bench", clusters: f.clusters, perDB: f.perDB, prefix: fmt.Sprintf("lb%d", rep)}
	if err := ensureNamespace(ctx, b.kube, lbW.ns); err != nil {
		return nil, err
	}
	fig["settle_before_lower_bound_s"] = settleDisk().Seconds()
	logf("r%d: dirty pages written back in %.1fs", rep, fig["settle_before_lower_bound_s"])
	logf("r%d: lower bound: the same workload by a plain loop in %s", rep, lbW.ns)
	floor, err := startLowerBound(ctx, b.env.Config, lbConfig{
		w: lbW, clusterWorkers: f.clusterWorkers, databaseWorkers: f.databaseWorkers,
		qps: float32(f.qps), burst: f.burst, creators: f.creators,
		hostMapFile: b.hostMap, backendNS: w.ns, backendClu: w.clusterName(0), caCert: ca.Data["ca.crt"],
	})
	if err != nil {
		return nil, err
	}
	// The lower bound stays up, clusters and instance managers, until
	// the latency phase has streamed over it too (floorstream.go).
	defer floor.close()
	lbr, err := floor.converge()
	if err != nil {
		return nil, err
	}
	logf("r%d: lower bound done in %.1fs", rep, lbr.wall.Seconds())
	res.lbAPI = lbr.counts
	fig["lower_bound_wall_s"] = lbr.wall.Seconds()
	fig["ratio_operator_over_lower_bound"] = wall.Seconds() / lbr.wall.Seconds()
	fig["lb_api_writes_per_object"] = sumWrites(lbr.counts) / nObj
	if nDB > 0 {
		fig["lb_sql_statements_per_database"] = float64(lbr.statements) / nDB
	}

	// 3. Idle cost: wait out one resync period of the converged objects.
	logf("r%d: idle cost: waiting for a full resync (period %v)", rep, f.resync)
	s0, err := op.scrape()
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	s1, err := b.waitResync(ctx, op, s0, w.objects())
	if err != nil {
		return nil, err
	}
	res.idleAPI = diffCounts(s0.apiCounts(), s1.apiCounts())
	fig["idle_window_s"] = time.Since(t0).Seconds()
	fig["idle_reconciles"] = s1.sum("setpoint_reconcile_total") - s0.sum("setpoint_reconcile_total")
	fig["idle_api_writes"] = sumWrites(res.idleAPI)
	fig["idle_api_requests"] = sumAll(res.idleAPI)
	fig["idle_sql_statements"] = s1.sum("setpoint_pipeline_statements_total") - s0.sum("setpoint_pipeline_statements_total")
	fig["idle_pg_connections"] = s1.sum("setpoint_pipeline_connections_total") - s0.sum("setpoint_pipeline_connections_total")
	fig["idle_cpu_s"] = s1.sum("process_cpu_seconds_total") - s0.sum("process_cpu_seconds_total")
	fig["rss_end_mb"] = s1.sum("process_resident_memory_bytes") / (1 << 20)
	fig["heap_end_mb"] = s1.sum("go_memstats_heap_alloc_bytes") / (1 << 20)
	memoryFigures(fig, "end_", s1, op.cmd.Process.Pid)
	// What the heap holds, for `go tool pprof` (kept with -logs).
	if heapProfiles {
		if err := op.saveHeapProfile(filepath.Join(b.logDir, fmt.Sprintf("heap-r%d.pprof", rep))); err != nil {
			logf("r%d: heap profile: %v", rep, err)
		}
	}
	fig["reconciles_total_per_object_end"] = s1.sum("setpoint_reconcile_total") / nObj
	// What an idle operator holds: once it has given the resync's freed
	// memory back to the OS.
	sIdle, err := b.waitMemoryReturn(ctx, op, s1)
	if err != nil {
		return nil, err
	}
	fig["rss_idle_mb"] = sIdle.sum("process_resident_memory_bytes") / (1 << 20)
	fig["memory_returns_end"] = sIdle.sum("setpoint_memory_returns_total")
	memoryFigures(fig, "idle_", sIdle, op.cmd.Process.Pid)
	// 4. Latency of one change on a busy operator, then 5. one cluster
	// at a time on an idle one; both with the converged objects in place.
	if f.streamDuration > 0 && f.streamRate > 0 && f.perDB > 0 {
		fig["settle_before_stream_s"] = settleDisk().Seconds()
		logf("r%d: dirty pages written back in %.1fs", rep, fig["settle_before_stream_s"])
		// The machine's speed before the stream: what one CREATE
		// DATABASE costs on the shared server now (marks.go).
		mark, err := floor.lb.markCreateDatabase(ctx, fmt.Sprintf("r%d", rep))
		if err != nil {
			return nil, err
		}
		fig["mark_create_database_s"] = mark.Seconds()
		if f.floorPlaces > 0 {
			floor.withStreamPlaces(f.floorPlaces)
			fig["floor_stream_places"] = float64(f.floorPlaces)
		}
		logf("r%d: latency: %g new PostgresDatabases/s for %v on the %d Ready clusters, and as many on the lower bound's, interleaved", rep, f.streamRate, f.streamDuration, w.clusters)
		sr, err := b.runStream(ctx, op, w, floor, lbW, f.streamRate, f.streamDuration)
		if err != nil {
			return nil, err
		}
		streamFigures(fig, sr)
		res.streamBreakdown = sr.breakdown
		logf("r%d: latency: %d databases each, apply → Ready p50 %.2fs p99 %.2fs, floor p50 %.2fs p99 %.2fs, ratios %.2f / %.2f; marks: API round trip p50 %.1f ms, CREATE DATABASE %.0f ms",
			rep, sr.n, fig["stream_ready_p50_s"], fig["stream_ready_p99_s"], fig["floor_stream_ready_p50_s"], fig["floor_stream_ready_p99_s"],
			fig["stream_ratio_p50"], fig["stream_ratio_p99"], 1000*fig["mark_api_round_trip_p50_s"], 1000*fig["mark_create_database_s"])
	}
	// The floor's work is done: its goroutines and sessions go before the
	// phases that follow measure anything.
	floor.close()
	if f.lightClusters > 0 {
		logf("r%d: light load: %d PostgresClusters one at a time (times relative to CNPG's healthy moment)", rep, f.lightClusters)
		lr, err := b.light(ctx, rep, op, w)
		if err != nil {
			return nil, err
		}
		lightFigures(fig, lr)
		res.lightTimelines = lr.timelines
		logf("r%d: light load: CNPG healthy → Ready p50 %.2fs p99 %.2fs", rep, fig["light_healthy_to_ready_p50_s"], fig["light_healthy_to_ready_p99_s"])
	}
	s2, err := op.scrape()
	if err != nil {
		return nil, err
	}
	res.apiErrors = s2.apiErrors()
	res.nErrLines, res.errLines = op.errorLines()
	op.kill()
	wcancel()

	// 5b. The background health collector, by a fresh operator with the
	// collector on, over the converged clusters (see collectorCost).
	if f.collectorRounds > 0 {
		logf("r%d: collector cost: %d rounds of samples of %d clusters (interval %v)", rep, f.collectorRounds, w.clusters, f.collectorInterval)
		cr, err := b.collectorCost(ctx, rep, w, f.collectorRounds)
		if err != nil {
			// The other phases' figures are worth keeping: the report
			// says the phase failed instead of failing the run.
			logf("r%d: collector phase failed: %v", rep, err)
			res.errLines = append(res.errLines, "collector phase failed: "+err.Error())
			res.nErrLines++
		} else {
			collectorFigures(fig, cr)
			logf("r%d: collector: %.0f samples/min, %.0f connections/min, %.2f CPU s/min, %.0f API writes, %.0f edges", rep,
				fig["collector_samples_per_min"], fig["collector_connections_per_min"], fig["collector_cpu_s_per_min"], cr.writes, cr.edges)
		}
	}

	// 6. Leader failover with default lease timings.
	if f.failover {
		fns := fmt.Sprintf("failover-r%d", rep)
		if err := ensureNamespace(ctx, b.kube, fns); err != nil {
			return nil, err
		}
		logf("r%d: leader failover (2 replicas, lease 15s/10s/2s)", rep)
		fo, err := runFailover(ctx, &failoverEnv{kube: b.kube, pg: b.pg, bin: b.bin, kubeconfig: b.env.KubeconfigPath,
			logDir: b.logDir, ns: fns, leaseID: fmt.Sprintf("setpoint-bench-%d-r%d", os.Getpid(), rep)})
		if err != nil {
			return nil, fmt.Errorf("failover: %w", err)
		}
		fig["failover_after_sigkill_s"] = fo.afterKill.Seconds()
		fig["failover_after_sigterm_s"] = fo.afterTerm.Seconds()
		fig["sigterm_to_exit_s"] = fo.termExit.Seconds()
		logf("r%d: failover %.1fs after SIGKILL, %.2fs after SIGTERM", rep, fo.afterKill.Seconds(), fo.afterTerm.Seconds())
	}

	// 7. The largest object setpoint writes, as the API server holds it
	// now (see objsize.go).
	sizes, perCluster, err := measureObjectSizes(ctx, b.kube.CoreV1().RESTClient(), w.ns)
	if err != nil {
		return nil, fmt.Errorf("object sizes: %w", err)
	}
	if lines := objectSizeFigures(fig, sizes, perCluster); len(lines) > 0 {
		res.objectSizes = prefixed(fmt.Sprintf("r%d ", rep), lines)
		logf("r%d: largest object: %s %s, %d bytes (up to %d databases on one cluster)", rep,
			sizes[0].kind, sizes[0].name, sizes[0].bytes, perCluster)
	}
	return res, nil
}

// curveOnly runs the cost curve and prints its report.
func (b *bench) curveOnly(ctx context.Context, meta runMeta, began time.Time) error {
	sizes, err := parseSizes(b.f.curveSizes)
	if err != nil {
		return err
	}
	logf("cost curve at %v PostgresDatabases (%d per cluster)", sizes, max(b.f.perDB, 1))
	pts, err := b.runCurve(ctx, sizes)
	if err != nil {
		if b.f.logDir == "" {
			dumpLogs(b.logDir)
		}
		return err
	}
	r := &curveReport{Meta: curveMeta(meta, sizes, began), Points: pts, Verdicts: verdicts(pts)}
	r.print(os.Stdout)
	if b.f.out != "" {
		if err := writeJSON(b.f.out, r); err != nil {
			return err
		}
		logf("wrote %s", b.f.out)
	}
	return nil
}

func prefixed(p string, lines []string) []string {
	for i, l := range lines {
		lines[i] = p + l
	}
	return lines
}

func pct(sorted []time.Duration, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	i := int(q*float64(len(sorted))+0.5) - 1
	i = max(0, min(i, len(sorted)-1))
	return sorted[i].Seconds()
}

// waitConverged waits until every object is Ready, printing progress.
func (b *bench) waitConverged(ctx context.Context, op *operatorProc, r *readiness, start time.Time) error {
	tick := time.NewTicker(15 * time.Second)
	defer tick.Stop()
	timeout := time.After(b.f.timeout - time.Since(start))
	for {
		select {
		case <-r.allReady:
			return nil
		case <-ctx.Done():
			return ctx.Err()
		case <-op.done:
			return fmt.Errorf("operator exited during convergence; log %s:\n%s", op.logPath, tail(op.logPath, 30))
		case <-timeout:
			n, phases := r.progress()
			return fmt.Errorf("not converged after %v: %d/%d Ready, not Ready by phase %v", b.f.timeout, n, r.want, phases)
		case <-tick.C:
			n, phases := r.progress()
			s, _ := op.scrape()
			nErr, _ := op.errorLines()
			logf("  %5.0fs: %d/%d Ready; others by phase %v; operator: %.0f API requests, %.0f reconciles, queue depth %.0f, %d error log lines",
				time.Since(start).Seconds(), n, r.want, phases, s.sum("setpoint_api_requests_total"),
				s.sum("setpoint_reconcile_total"), s.sum("workqueue_depth"), nErr)
		}
	}
}

// memoryReturnWait bounds the wait for the operator to give freed memory
// back after the resync: four of its default 10 s looks. It is polled
// every memoryReturnPoll, not faster: each scrape allocates, and scraping
// twice a second kept the operator from ever looking quiet.
const (
	memoryReturnWait = 40 * time.Second
	memoryReturnPoll = 5 * time.Second
)

// waitMemoryReturn waits until the operator has returned freed memory to
// the OS since s1 (setpoint_memory_returns_total grew) and returns the
// scrape after it; after memoryReturnWait without one (the resync was too
// small a burst to be worth a return) it returns the last scrape.
func (b *bench) waitMemoryReturn(ctx context.Context, op *operatorProc, s1 scrape) (scrape, error) {
	base := s1.sum("setpoint_memory_returns_total")
	deadline := time.Now().Add(memoryReturnWait)
	for {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(memoryReturnPoll):
		}
		s, err := op.scrape()
		if err != nil {
			return nil, err
		}
		if s.sum("setpoint_memory_returns_total") > base || time.Now().After(deadline) {
			return s, nil
		}
	}
}

// waitResync waits until the operator has reconciled at least n more
// objects than in s0 (one resync of everything) and then gone quiet
// (queues empty, no new reconcile for 3 s); it returns the last scrape.
func (b *bench) waitResync(ctx context.Context, op *operatorProc, s0 scrape, n int) (scrape, error) {
	base := s0.sum("setpoint_reconcile_total")
	deadline := time.Now().Add(b.f.resync + 3*time.Minute)
	var last float64 = -1
	var quietSince time.Time
	for time.Now().Before(deadline) {
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
		s, err := op.scrape()
		if err != nil {
			return nil, err
		}
		cur := s.sum("setpoint_reconcile_total")
		if cur-base < float64(n) {
			continue
		}
		if cur != last || s.sum("workqueue_depth") > 0 {
			last, quietSince = cur, time.Now()
			continue
		}
		if time.Since(quietSince) >= 3*time.Second {
			return s, nil
		}
	}
	return nil, fmt.Errorf("no full resync seen within %v (reconciles since convergence: %.0f, want ≥ %d)",
		b.f.resync+3*time.Minute, last-base, n)
}

// setKlogVerbosity sets the level of the stand-in's log (klog is
// process-wide; the operators log in processes of their own).
func setKlogVerbosity(v int) error {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	return fs.Set("v", strconv.Itoa(v))
}
