package cnpgsim

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// keptConns are a server's idle superuser sessions to database postgres,
// kept between syncs as CNPG's instance manager keeps its pool. On the
// bench's loaded machine opening a session cost more than the statements
// it ran (p50 140 ms against 110 ms for a DatabaseRole's SQL), and every
// Cluster's DatabaseRoles wait in one line for their instance manager.
//
// Only the shared backend keeps any (max 0 elsewhere): a server of its own
// serves one Cluster, and the tests that fill its max_connections count on
// the stand-in holding no session between syncs.
// keptShared is how many the shared backend keeps: one per worker of a
// bench's stand-in (its DatabaseRole and Database loops, 8 workers each).
const keptShared = 16

type keptConns struct {
	max   int
	mu    sync.Mutex
	idle  []*pgx.Conn
	epoch int // bumped when the server stops: older sessions are dead
}

// take returns an idle session, or nil, and the epoch to give back with it.
func (k *keptConns) take() (*pgx.Conn, int) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if n := len(k.idle); n > 0 {
		c := k.idle[n-1]
		k.idle = k.idle[:n-1]
		return c, k.epoch
	}
	return nil, k.epoch
}

// give keeps a session that did its work, if there is room and the server
// has not stopped since it was opened; otherwise it closes it.
func (k *keptConns) give(c *pgx.Conn, epoch int, ok bool) {
	k.mu.Lock()
	keep := ok && !c.IsClosed() && epoch == k.epoch && len(k.idle) < k.max
	if keep {
		k.idle = append(k.idle, c)
	}
	k.mu.Unlock()
	if !keep {
		closeConn(c)
	}
}

// drop closes every idle session; the server is stopping.
func (k *keptConns) drop() {
	k.mu.Lock()
	idle := k.idle
	k.idle = nil
	k.epoch++
	k.mu.Unlock()
	for _, c := range idle {
		closeConn(c)
	}
}

func closeConn(c *pgx.Conn) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = c.Close(ctx)
}
