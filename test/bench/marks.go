package main

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/test/cnpgsim"
)

// Marks of the machine's speed, printed with every run: on this machine
// the same commit's stream moved 4× within a night, so a slow run must be
// told from a slow operator. Both marks are taken by the bench itself, not
// by the operator or the lower bound, so neither side's own cost is in
// them.

// apiProbe times a small read of the API server (GET of a namespace) at a
// steady pace while it runs: the round trip any client pays at that
// moment.
type apiProbe struct {
	mu    sync.Mutex
	rtts  []time.Duration
	stop  context.CancelFunc
	done  chan struct{}
	fails int
}

// apiProbeEvery is the probe's pace: a few reads a second add nothing the
// server would notice next to a stream's writes.
const apiProbeEvery = 250 * time.Millisecond

// startAPIProbe starts probing; read the figures after stop.
func startAPIProbe(ctx context.Context, admin *rest.Config, ns string) (*apiProbe, error) {
	rc := rest.CopyConfig(admin)
	// No client-side limiter: the probe measures the server, not a bucket.
	rc.QPS, rc.Burst = -1, 0
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("API probe client: %w", err)
	}
	pctx, cancel := context.WithCancel(ctx)
	p := &apiProbe{stop: cancel, done: make(chan struct{})}
	go func() {
		defer close(p.done)
		tick := time.NewTicker(apiProbeEvery)
		defer tick.Stop()
		for {
			select {
			case <-pctx.Done():
				return
			case <-tick.C:
			}
			t := time.Now()
			_, err := kube.CoreV1().Namespaces().Get(pctx, ns, metav1.GetOptions{})
			d := time.Since(t)
			p.mu.Lock()
			if err != nil {
				if pctx.Err() == nil {
					p.fails++
				}
			} else {
				p.rtts = append(p.rtts, d)
			}
			p.mu.Unlock()
		}
	}()
	return p, nil
}

// finish stops the probe and returns its round trips, sorted, and the
// number of failed reads.
func (p *apiProbe) finish() ([]time.Duration, int) {
	p.stop()
	<-p.done
	p.mu.Lock()
	defer p.mu.Unlock()
	out := append([]time.Duration(nil), p.rtts...)
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out, p.fails
}

// createDatabaseMarks is how many databases the CREATE DATABASE mark
// creates; its figure is their median.
const createDatabaseMarks = 3

// markCreateDatabase times CREATE DATABASE on the shared server, the way
// the stand-in and the lower bound run it (same strategy), on a session of
// its own, and drops what it created. It returns the median time.
func (lb *lowerBound) markCreateDatabase(ctx context.Context, prefix string) (time.Duration, error) {
	conn, err := lb.connect(ctx, "postgres")
	if err != nil {
		return 0, fmt.Errorf("CREATE DATABASE mark: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var ds []time.Duration
	for i := range createDatabaseMarks {
		id := pgx.Identifier{fmt.Sprintf("%smark%d", prefix, i)}.Sanitize()
		t := time.Now()
		if _, err := conn.Exec(ctx, "CREATE DATABASE "+id+" STRATEGY "+cnpgsim.SharedCreateStrategy); err != nil {
			return 0, fmt.Errorf("CREATE DATABASE mark: %w", err)
		}
		ds = append(ds, time.Since(t))
		if _, err := conn.Exec(ctx, "DROP DATABASE "+id); err != nil {
			return 0, fmt.Errorf("DROP DATABASE mark: %w", err)
		}
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], nil
}
