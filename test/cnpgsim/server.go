package cnpgsim

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/setpoint-dev/setpoint/test/freeport"
	"k8s.io/klog/v2"
)

// server is one real Postgres server: a data directory owned by the
// postgres OS user, a fixed loopback port and, while running, the
// postmaster process. Its methods are safe for concurrent use.
type server struct {
	binDir string
	dir    string // owned by the run-as user; holds data/, sock/, postgres.log
	port   int
	owner  *osUser

	// onCrash, if set, is called when the postmaster exits without being
	// stopped, so the Cluster's status follows at once.
	onCrash func()

	// kept are idle sessions kept between syncs (kept_conns.go).
	kept keptConns

	mu       sync.Mutex
	cmd      *exec.Cmd
	exited   chan struct{}
	stopping *atomic.Bool // of the current process: set by stop
}

func newServer(binDir, dir string, owner *osUser) (*server, error) {
	port, err := freeport.Take()
	if err != nil {
		return nil, err
	}
	s := &server{binDir: binDir, dir: dir, port: port, owner: owner}
	for _, d := range []string{dir, s.sockDir()} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil, fmt.Errorf("create server directory: %w", err)
		}
		if err := owner.chown(d); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *server) dataDir() string { return filepath.Join(s.dir, "data") }
func (s *server) sockDir() string { return filepath.Join(s.dir, "sock") }

// addr is the loopback address clients dial.
func (s *server) addr() string { return "127.0.0.1:" + strconv.Itoa(s.port) }

func (s *server) initialized() bool {
	_, err := os.Stat(filepath.Join(s.dataDir(), "PG_VERSION"))
	return err == nil
}

// initdb creates the data directory. It uses trust only because initdb
// insists on a password for password methods; pg_hba.conf is rewritten
// before the first start, and the superuser password stays NULL (as in
// CNPG) until a Cluster asks for superuser access.
func (s *server) initdb(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, filepath.Join(s.binDir, "initdb"),
		"-D", s.dataDir(), "-U", "postgres", "-A", "trust",
		"--encoding=UTF8", "--locale=C", "--no-sync", "--no-instructions")
	cmd.Dir = s.dir
	cmd.SysProcAttr = s.owner.procAttr()
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C"}
	// initdb runs a single-user postgres child: on cancel, kill the whole
	// process group, or that child outlives us.
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w: %s", err, out)
	}
	return nil
}

// start launches the postmaster and waits until it accepts connections.
func (s *server) start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd != nil {
		return nil
	}
	logFile, err := os.OpenFile(filepath.Join(s.dir, "postgres.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open server log: %w", err)
	}
	defer logFile.Close()
	// Port and sockets on the command line: they are fixed per server, like
	// CNPG's fixed parameters, and ALTER SYSTEM must not move them.
	cmd := exec.Command(filepath.Join(s.binDir, "postgres"),
		"-D", s.dataDir(),
		"-c", "listen_addresses=127.0.0.1",
		"-p", strconv.Itoa(s.port),
		"-k", s.sockDir())
	cmd.Dir = s.dir
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = s.owner.procAttr()
	cmd.Env = []string{"PATH=/usr/bin:/bin", "LANG=C"}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start postgres: %w", err)
	}
	exited, stopping := make(chan struct{}), new(atomic.Bool)
	go func() {
		_ = cmd.Wait()
		close(exited)
		s.kept.drop() // a postmaster that exits ends its sessions
		if !stopping.Load() && s.onCrash != nil {
			s.onCrash()
		}
	}()
	s.cmd, s.exited, s.stopping = cmd, exited, stopping
	if err := s.waitReady(ctx, exited); err != nil {
		s.stopLocked()
		return err
	}
	klog.FromContext(ctx).V(2).Info("Postgres started", "addr", s.addr(), "dir", s.dir)
	return nil
}

func (s *server) waitReady(ctx context.Context, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	for {
		conn, err := s.connect(ctx, "postgres")
		if err == nil {
			return conn.Close(ctx)
		}
		select {
		case <-exited:
			return fmt.Errorf("postgres exited during start-up; see %s", filepath.Join(s.dir, "postgres.log"))
		case <-ctx.Done():
			return fmt.Errorf("postgres did not accept connections: %w", err)
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// running reports whether the postmaster is alive.
func (s *server) running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return false
	}
	select {
	case <-s.exited:
		s.cmd = nil
		return false
	default:
		return true
	}
}

// stop shuts the server down ("fast" mode: SIGINT), killing it if it does
// not finish in time. The data directory stays.
func (s *server) stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.stopLocked()
}

func (s *server) stopLocked() {
	s.kept.drop()
	if s.cmd == nil {
		return
	}
	s.stopping.Store(true)
	_ = s.cmd.Process.Signal(syscall.SIGINT)
	select {
	case <-s.exited:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.exited
	}
	s.cmd = nil
}

// restart is what CNPG does for parameters that need one.
func (s *server) restart(ctx context.Context) error {
	s.stop()
	return s.start(ctx)
}

// destroy stops the server and removes everything it wrote.
func (s *server) destroy() error {
	s.stop()
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("remove server directory: %w", err)
	}
	return nil
}

// connect opens a superuser session over the Unix socket, authenticated by
// peer credentials (pg_ident maps this process's user to postgres), so the
// Simulator never needs the superuser password, which may be NULL.
func (s *server) connect(ctx context.Context, database string) (*pgx.Conn, error) {
	cfg, err := pgx.ParseConfig("")
	if err != nil {
		return nil, fmt.Errorf("pgx config: %w", err)
	}
	cfg.Host = s.sockDir()
	cfg.Port = uint16(s.port)
	cfg.User = "postgres"
	cfg.Database = database
	cfg.Password = ""
	cfg.TLSConfig = nil
	cfg.Fallbacks = nil
	cfg.ConnectTimeout = 5 * time.Second
	cfg.RuntimeParams = map[string]string{"application_name": "cnpgsim"}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("connect to %s database %q: %w", s.addr(), database, err)
	}
	return conn, nil
}
