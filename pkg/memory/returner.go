package memory

import (
	"context"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"k8s.io/klog/v2"
)

// Runtime metrics read each period.
const (
	allocsMetric = "/gc/heap/allocs:bytes"
	keptMetric   = "/memory/classes/heap/free:bytes"
)

// defaultThresholds: an idle operator allocates little per period (Lease
// renewals, metric scrapes, the collector's samples); a burst allocates
// far more. The busy threshold, 16 MiB since the last return, is more
// than the collector lets the heap grow between two of its own cycles at
// the bench's size (docs/benchmarks/README.md, "Reading the memory
// figures"), so returns never outnumber natural cycles; a return of 2 MiB
// or more is worth its one collection.
var defaultThresholds = thresholds{quiet: 4 << 20, busy: 16 << 20, minKept: 2 << 20}

// Returner returns freed heap pages to the OS after bursts of work.
type Returner struct {
	period   time.Duration
	d        decider
	samples  []metrics.Sample
	returns  prometheus.Counter
	returned prometheus.Counter
}

// NewReturner builds a Returner that looks every period and registers its
// metrics with reg.
func NewReturner(period time.Duration, reg prometheus.Registerer) *Returner {
	r := &Returner{
		period:  period,
		d:       decider{t: defaultThresholds},
		samples: []metrics.Sample{{Name: allocsMetric}, {Name: keptMetric}},
		returns: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "setpoint_memory_returns_total",
			Help: "Times the operator returned freed heap memory to the OS after a burst of work.",
		}),
		returned: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "setpoint_memory_returned_bytes_total",
			Help: "Freed heap memory the operator returned to the OS after bursts of work.",
		}),
	}
	reg.MustRegister(r.returns, r.returned)
	return r
}

// Run looks every period until ctx ends.
func (r *Returner) Run(ctx context.Context) {
	tick := time.NewTicker(r.period)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			r.look(ctx)
		}
	}
}

// look samples the runtime and returns the kept pages when the decider
// says so.
func (r *Returner) look(ctx context.Context) {
	before := r.read()
	if !r.d.next(before) {
		return
	}
	start := time.Now()
	debug.FreeOSMemory()
	after := r.read()
	// A collection may free more than was kept before it; count what left.
	freed := float64(0)
	if before.kept > after.kept {
		freed = float64(before.kept - after.kept)
	}
	r.returns.Inc()
	r.returned.Add(freed)
	// Allocation by the release itself is not the next burst.
	r.d.prev = after
	klog.FromContext(ctx).V(2).Info("Returned freed heap memory to the OS after a burst of work",
		"keptBytes", before.kept, "keptAfterBytes", after.kept, "took", time.Since(start))
}

func (r *Returner) read() sample {
	metrics.Read(r.samples)
	return sample{allocs: r.samples[0].Value.Uint64(), kept: r.samples[1].Value.Uint64()}
}
