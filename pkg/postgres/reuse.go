package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
)

// ReuseWindow is how long a released connection waits for the next caller
// with the same target. Role and database checks of PostgresDatabases
// created together reach the same server within it; a server nobody asks
// for holds no connection of ours for longer.
const ReuseWindow = 2 * time.Second

// Acquire returns a connection to t: the one a previous caller released
// for the same target within ReuseWindow, else a new one (ctx bounds the
// connection attempt). Give it back with Release.
func (c *Connector) Acquire(ctx context.Context, t Target) (*pgx.Conn, error) {
	if conn := c.reuse().take(reuseKey(t)); conn != nil {
		return conn, nil
	}
	return c.Connect(ctx, t)
}

// Release hands conn back for the next Acquire of t within ReuseWindow; a
// connection pgx closed after an error, or one arriving when another for t
// waits already, is closed.
func (c *Connector) Release(t Target, conn *pgx.Conn) {
	if conn == nil {
		return
	}
	c.reuse().put(reuseKey(t), conn, ReuseWindow)
}

func (c *Connector) reuse() *idleSet[*pgx.Conn] {
	c.idleOnce.Do(func() { c.idle = &idleSet[*pgx.Conn]{conns: map[string]*idleConn[*pgx.Conn]{}} })
	return c.idle
}

// reuseKey names everything a connection was opened with; the password
// CA and client certificate enter only as a digest, so a rotated password,
// CA or certificate never gets a connection opened with the old ones.
func reuseKey(t Target) string {
	h := sha256.New()
	for _, s := range []string{t.Namespace, t.Cluster, t.Database, t.User, t.Password, string(t.CACert), string(t.ClientCert), string(t.ClientKey), t.StatementTimeout.String()} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil))
}

// closer is what idleSet needs of a connection.
type closer interface {
	comparable
	IsClosed() bool
	Close(ctx context.Context) error
}

// idleSet keeps at most one idle connection per key, each closed when its
// window ends unless taken first.
type idleSet[C closer] struct {
	mu    sync.Mutex
	conns map[string]*idleConn[C]
}

type idleConn[C closer] struct {
	conn  C
	timer *time.Timer
}

func (s *idleSet[C]) take(key string) C {
	s.mu.Lock()
	defer s.mu.Unlock()
	var zero C
	ic, ok := s.conns[key]
	if !ok {
		return zero
	}
	delete(s.conns, key)
	ic.timer.Stop()
	if ic.conn.IsClosed() {
		return zero
	}
	return ic.conn
}

func (s *idleSet[C]) put(key string, conn C, window time.Duration) {
	if conn.IsClosed() {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.conns[key]; ok {
		go closeQuietly(conn)
		return
	}
	ic := &idleConn[C]{conn: conn}
	ic.timer = time.AfterFunc(window, func() {
		s.mu.Lock()
		if s.conns[key] != ic {
			s.mu.Unlock()
			return // taken meanwhile
		}
		delete(s.conns, key)
		s.mu.Unlock()
		closeQuietly(conn)
	})
	s.conns[key] = ic
}

func closeQuietly[C closer](conn C) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = conn.Close(ctx)
}
