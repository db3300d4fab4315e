package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// The cost curve: the convergence phase alone at several sizes, each in a
// fresh namespace with a fresh operator process, so that each figure is
// the cost of that many objects and nothing else. A linear operator spends
// the same per object at every size, apart from a fixed cost (process,
// informers, the first cluster's wait) that only shows at small sizes; the
// verdict therefore compares the marginal cost per object between the two
// upper sizes with that between the two lower ones.

type curvePoint struct {
	Databases      int     `json:"databases"`
	Clusters       int     `json:"clusters"`
	Objects        int     `json:"objects"`
	WallSeconds    float64 `json:"wallSeconds"`
	Writes         float64 `json:"apiWrites"`
	Requests       float64 `json:"apiRequests"`
	CPUSeconds     float64 `json:"cpuSeconds"`
	RSSMiB         float64 `json:"rssMiB"`
	HeapMiB        float64 `json:"heapMiB"`
	ReconcilesPerO float64 `json:"reconcilesPerObject"`
}

// curveMetric is one column of the verdict.
type curveMetric struct {
	name string
	of   func(curvePoint) float64
}

var curveMetrics = []curveMetric{
	{"wall s", func(p curvePoint) float64 { return p.WallSeconds }},
	{"API writes", func(p curvePoint) float64 { return p.Writes }},
	{"CPU s", func(p curvePoint) float64 { return p.CPUSeconds }},
	{"RSS MiB", func(p curvePoint) float64 { return p.RSSMiB }},
}

func parseSizes(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 {
			return nil, fmt.Errorf("-curve-sizes: %q is not a positive number", f)
		}
		if len(out) > 0 && n <= out[len(out)-1] {
			return nil, fmt.Errorf("-curve-sizes must increase: %s", s)
		}
		out = append(out, n)
	}
	if len(out) < 2 {
		return nil, fmt.Errorf("-curve-sizes needs at least two sizes")
	}
	return out, nil
}

// runCurve converges each size in turn.
func (b *bench) runCurve(ctx context.Context, sizes []int) ([]curvePoint, error) {
	perDB := max(b.f.perDB, 1)
	var pts []curvePoint
	for _, dbs := range sizes {
		clusters := max(dbs/perDB, 1)
		w := workload{ns: fmt.Sprintf("curve-%d", dbs), class: "bench", clusters: clusters, perDB: perDB, prefix: fmt.Sprintf("k%d", dbs)}
		p, err := b.curvePoint(ctx, w)
		if err != nil {
			return nil, fmt.Errorf("curve at %d databases: %w", dbs, err)
		}
		logf("curve: %d objects in %.1fs, %.2f writes/object, CPU %.1fs, RSS %.0f MiB",
			p.Objects, p.WallSeconds, p.Writes/float64(p.Objects), p.CPUSeconds, p.RSSMiB)
		pts = append(pts, p)
	}
	return pts, nil
}

func (b *bench) curvePoint(ctx context.Context, w workload) (curvePoint, error) {
	f := b.f
	if err := ensureNamespace(ctx, b.kube, w.ns); err != nil {
		return curvePoint{}, err
	}
	if err := ensureClass(ctx, b.pg, w.class); err != nil {
		return curvePoint{}, err
	}
	op, err := b.startWatching(ctx, "operator-"+w.ns, w.ns, b.hostMap, collectorOff)
	if err != nil {
		return curvePoint{}, err
	}
	defer op.kill()
	s0, err := op.scrape()
	if err != nil {
		return curvePoint{}, err
	}
	ready := newReadiness(w.objects())
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := watchReadiness(wctx, b.pg, w.ns, ready); err != nil {
		return curvePoint{}, err
	}
	// Each size starts without the previous one's writeback (settleDisk).
	logf("curve: dirty pages written back in %.1fs", settleDisk().Seconds())
	logf("curve: %d PostgresClusters and %d PostgresDatabases in %s", w.clusters, w.clusters*w.perDB, w.ns)
	start, err := createAll(ctx, b.pg, w, f.creators, func(c created) { ready.markApplied(c.kind+"/"+c.name, c.at) })
	if err != nil {
		return curvePoint{}, err
	}
	if err := b.waitConverged(ctx, op, ready, start); err != nil {
		return curvePoint{}, err
	}
	s1, err := op.scrape()
	if err != nil {
		return curvePoint{}, err
	}
	s2, err := settle(ctx, op)
	if err != nil {
		return curvePoint{}, err
	}
	api := diffCounts(s0.apiCounts(), s2.apiCounts())
	n := w.objects()
	return curvePoint{
		Databases: w.clusters * w.perDB, Clusters: w.clusters, Objects: n,
		WallSeconds: ready.lastReady().Sub(start).Seconds(),
		Writes:      sumWrites(api), Requests: sumAll(api),
		CPUSeconds:     s1.sum("process_cpu_seconds_total") - s0.sum("process_cpu_seconds_total"),
		RSSMiB:         s1.sum("process_resident_memory_bytes") / (1 << 20),
		HeapMiB:        s1.sum("go_memstats_heap_alloc_bytes") / (1 << 20),
		ReconcilesPerO: s1.sum("setpoint_reconcile_total") / float64(n),
	}, nil
}

// curveVerdict compares, for one metric, the marginal cost per object of
// the last step with that of the first step (1 = linear; a fixed cost
// cancels out), and the plain per-object cost at the largest size with
// that at the smallest.
type curveVerdict struct {
	Metric        string  `json:"metric"`
	PerObjSmall   float64 `json:"perObjectSmallest"`
	PerObjLarge   float64 `json:"perObjectLargest"`
	PerObjRatio   float64 `json:"perObjectRatioLargestOverSmallest"`
	MarginalRatio float64 `json:"marginalRatioLastStepOverFirstStep"`
	Verdict       string  `json:"verdict"`
}

// superLinear is the marginal ratio above which a metric is called
// super-linear; the machine's noise alone moves it by ±0.2.
const superLinear = 1.3

func verdicts(pts []curvePoint) []curveVerdict {
	if len(pts) < 2 {
		return nil
	}
	first, last := pts[0], pts[len(pts)-1]
	var out []curveVerdict
	for _, m := range curveMetrics {
		v := curveVerdict{Metric: m.name,
			PerObjSmall: m.of(first) / float64(first.Objects), PerObjLarge: m.of(last) / float64(last.Objects)}
		v.PerObjRatio = v.PerObjLarge / v.PerObjSmall
		slope := func(a, b curvePoint) float64 { return (m.of(b) - m.of(a)) / float64(b.Objects-a.Objects) }
		if len(pts) >= 3 {
			v.MarginalRatio = slope(pts[len(pts)-2], last) / slope(first, pts[1])
		} else {
			v.MarginalRatio = v.PerObjRatio
		}
		switch {
		case math.IsNaN(v.MarginalRatio) || math.IsInf(v.MarginalRatio, 0):
			v.Verdict = "undetermined"
		case v.MarginalRatio > superLinear:
			v.Verdict = "super-linear"
		case v.MarginalRatio < 1/superLinear:
			v.Verdict = "sub-linear"
		default:
			v.Verdict = "linear"
		}
		out = append(out, v)
	}
	return out
}

type curveReport struct {
	Meta     runMeta        `json:"meta"`
	Points   []curvePoint   `json:"points"`
	Verdicts []curveVerdict `json:"verdicts"`
}

func (r *curveReport) print(out io.Writer) {
	m := r.Meta
	fmt.Fprintf(out, "\nsetpoint bench cost curve — commit %s, %s, GOMAXPROCS %d (%d CPUs), %s\n",
		m.Commit, m.GoVersion, m.GOMAXPROCS, m.NumCPU, m.Date)
	fmt.Fprintf(out, "settings: %s\ntotal run time %.0fs\n\n", m.Settings, m.TotalSeconds)
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "databases\tclusters\tobjects\twall s\twall ms/object\twrites/object\tCPU s\tCPU ms/object\tRSS MiB\theap MiB\treconciles/object")
	for _, p := range r.Points {
		o := float64(p.Objects)
		fmt.Fprintf(tw, "%d\t%d\t%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n", p.Databases, p.Clusters, p.Objects,
			num(p.WallSeconds), num(1000*p.WallSeconds/o), num(p.Writes/o), num(p.CPUSeconds), num(1000*p.CPUSeconds/o),
			num(p.RSSMiB), num(p.HeapMiB), num(p.ReconcilesPerO))
	}
	tw.Flush()
	fmt.Fprintf(out, "\nlinearity (marginal ratio = cost per added object, last step / first step; 1 is linear, > %.1f super-linear)\n", superLinear)
	tw = tabwriter.NewWriter(out, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tper object, smallest\tper object, largest\tratio largest/smallest\tmarginal ratio\tverdict")
	for _, v := range r.Verdicts {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", v.Metric, num(v.PerObjSmall), num(v.PerObjLarge), num(v.PerObjRatio), num(v.MarginalRatio), v.Verdict)
	}
	tw.Flush()
}

// curveSettings is the meta line of a curve run.
func curveMeta(m runMeta, sizes []int, began time.Time) runMeta {
	m.Reps, m.Clusters = 1, 0
	m.Settings += fmt.Sprintf("; curve sizes %v databases", sizes)
	m.TotalSeconds = time.Since(began).Seconds()
	return m
}
