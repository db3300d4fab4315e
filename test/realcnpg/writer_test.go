package realcnpg

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ackWriter is an application that inserts one numbered row after another
// through the cluster's -rw Service, one row per transaction, and
// reconnects whenever its session breaks, as an application with a retry
// loop does. It records which rows Postgres acknowledged (COMMIT
// returned) and which it may or may not have committed (the session broke
// before the answer came).
type ackWriter struct {
	mu        sync.Mutex
	acked     []int
	uncertain []int
	errs      []string
	// lastAck is when the last row was acknowledged, and longestGap the
	// longest time between two acknowledgements: how long the
	// application could not write.
	lastAck    time.Time
	longestGap time.Duration
	stop       context.CancelFunc
	done       chan struct{}
}

// startAckWriter starts the loop as the user of Secret secret, writing into
// table (id int PRIMARY KEY) of database.
func startAckWriter(t *testing.T, ns, cluster, database, table, secret string) *ackWriter {
	t.Helper()
	return startAckWriterVia(t, ns, cluster, cluster+"-rw", database, table, secret)
}

// startAckWriterVia is startAckWriter through Service service (a pooler's).
func startAckWriterVia(t *testing.T, ns, cluster, service, database, table, secret string) *ackWriter {
	t.Helper()
	sec, err := kube.CoreV1().Secrets(ns).Get(t.Context(), secret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := sessionConfig(t.Context(), ns, cluster, service, database)
	if err != nil {
		t.Fatal(err)
	}
	cfg.User, cfg.Password = string(sec.Data["username"]), string(sec.Data["password"])
	cfg.ConnectTimeout = 5 * time.Second
	ctx, cancel := context.WithCancel(t.Context())
	w := &ackWriter{stop: cancel, done: make(chan struct{})}
	go w.run(ctx, cfg, "INSERT INTO "+pgx.Identifier{table}.Sanitize()+" (id) VALUES ($1)")
	t.Cleanup(w.end)
	return w
}

func (w *ackWriter) run(ctx context.Context, cfg *pgx.ConnConfig, insert string) {
	defer close(w.done)
	var conn *pgx.Conn
	for id := 1; ctx.Err() == nil; {
		if conn == nil {
			c, err := pgx.ConnectConfig(ctx, cfg)
			if err != nil {
				w.failed(fmt.Sprintf("connect: %v", err))
				pause(ctx, 200*time.Millisecond)
				continue
			}
			conn = c
		}
		// Each statement is bounded: a session to a primary that went
		// away without a word must not hang the loop.
		sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		_, err := conn.Exec(sctx, insert, id)
		cancel()
		if ctx.Err() != nil && err != nil {
			w.record(id, false, "")
			break
		}
		if err != nil {
			// The row may have committed on a server whose answer was
			// lost, or not: either is honest.
			w.record(id, false, fmt.Sprintf("insert %d: %v", id, err))
			_ = conn.Close(context.WithoutCancel(ctx))
			conn = nil
			id++
			pause(ctx, 200*time.Millisecond)
			continue
		}
		w.record(id, true, "")
		id++
		pause(ctx, 20*time.Millisecond)
	}
	if conn != nil {
		_ = conn.Close(context.WithoutCancel(ctx))
	}
}

func (w *ackWriter) record(id int, acked bool, why string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if acked {
		w.acked = append(w.acked, id)
		now := time.Now()
		if !w.lastAck.IsZero() && now.Sub(w.lastAck) > w.longestGap {
			w.longestGap = now.Sub(w.lastAck)
		}
		w.lastAck = now
		return
	}
	w.uncertain = append(w.uncertain, id)
	if why != "" {
		w.errs = append(w.errs, why)
	}
}

func (w *ackWriter) failed(why string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.errs = append(w.errs, why)
}

// gap is the longest time between two acknowledged rows so far.
func (w *ackWriter) gap() time.Duration {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.longestGap
}

// ackedCount is how many rows Postgres has acknowledged so far.
func (w *ackWriter) ackedCount() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.acked)
}

func (w *ackWriter) end() {
	w.stop()
	<-w.done
}

// finish stops the loop and returns what it recorded.
func (w *ackWriter) finish() (acked, uncertain []int, errs []string) {
	w.end()
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.acked), slices.Clone(w.uncertain), slices.Clone(w.errs)
}

func pause(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// checkNoRowLost compares the rows present in table with what the writer
// recorded: every acknowledged row must be there, and no row the writer
// never sent.
func checkNoRowLost(t *testing.T, conn *pgx.Conn, table string, acked, uncertain []int) {
	t.Helper()
	rows, err := conn.Query(t.Context(), "SELECT id FROM "+pgx.Identifier{table}.Sanitize())
	if err != nil {
		t.Fatal(err)
	}
	present, err := pgx.CollectRows(rows, pgx.RowTo[int])
	if err != nil {
		t.Fatal(err)
	}
	var lost, unknown []int
	for _, id := range acked {
		if !slices.Contains(present, id) {
			lost = append(lost, id)
		}
	}
	for _, id := range present {
		if !slices.Contains(acked, id) && !slices.Contains(uncertain, id) {
			unknown = append(unknown, id)
		}
	}
	if len(lost) > 0 {
		t.Errorf("%d of %d acknowledged rows lost: %v", len(lost), len(acked), lost)
	}
	if len(unknown) > 0 {
		t.Errorf("rows present that the writer never sent: %v", unknown)
	}
}
