package envtest

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// process is one control-plane command. Its output goes to a log file in
// the environment's directory, which is printed when start-up fails.
type process struct {
	name    string
	path    string
	args    []string
	env     []string // added to the test's environment
	logFile string

	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

func newProcess(binDir, name, logDir string, args ...string) *process {
	return &process{
		name:    name,
		path:    filepath.Join(binDir, name),
		args:    args,
		logFile: filepath.Join(logDir, name+".log"),
	}
}

// start launches the command. The child dies with the test binary
// (Pdeathsig), so a test killed by a timeout leaves nothing running.
func (p *process) start() error {
	out, err := os.OpenFile(p.logFile, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("open %s log: %w", p.name, err)
	}
	cmd := exec.Command(p.path, p.args...)
	cmd.Stdout, cmd.Stderr = out, out
	if p.env != nil {
		cmd.Env = append(os.Environ(), p.env...)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		out.Close()
		return fmt.Errorf("start %s: %w", p.name, err)
	}
	p.cmd, p.done = cmd, make(chan struct{})
	go func() {
		p.err = cmd.Wait()
		out.Close()
		close(p.done)
	}()
	return nil
}

// exited reports whether the process has ended.
func (p *process) exited() bool {
	if p.done == nil {
		return true
	}
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// stop sends SIGTERM to the process group and SIGKILL after the grace
// period; it returns once the process has been reaped.
func (p *process) stop(grace time.Duration) {
	if p.exited() {
		return
	}
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
}

// tail returns the end of the process's log, for error messages.
func (p *process) tail() string {
	data, err := os.ReadFile(p.logFile)
	if err != nil {
		return ""
	}
	const max = 4000
	if len(data) > max {
		data = data[len(data)-max:]
	}
	return string(data)
}

// waitFor polls check until it succeeds, the process exits, or ctx ends.
func (p *process) waitFor(ctx context.Context, what string, check func(context.Context) error) error {
	var last error
	for {
		if p.exited() {
			return fmt.Errorf("%s exited before %s: %v\n%s", p.name, what, p.err, p.tail())
		}
		if last = check(ctx); last == nil {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%s: waiting for %s: %w", p.name, what, errors.Join(ctx.Err(), last))
		case <-time.After(100 * time.Millisecond):
		}
	}
}
