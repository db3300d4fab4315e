// Package sandbox starts the local sandbox behind `make demo`: a real
// control plane (test/envtest, with setpoint's and CNPG's CRDs), the CNPG
// stand-in (test/cnpgsim) with real Postgres servers, and, in a state
// directory, the kubeconfig and host map that kubectl and the operator use.
// Stop removes all of it.
package sandbox

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/klog/v2"

	"github.com/setpoint-dev/setpoint/test/cnpgsim"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// Options tune a Sandbox.
type Options struct {
	// Dir is the state directory for kubeconfig and hostmap.json; default
	// ".sandbox" (git-ignored) in the working directory.
	Dir string
	// Simulator configures the CNPG stand-in; its HostMapFile is set to
	// Dir/hostmap.json.
	Simulator cnpgsim.Options
}

// Sandbox is a running control plane with the CNPG stand-in.
type Sandbox struct {
	// Env is the control plane; Env.Config is an admin client config.
	Env *envtest.Environment
	// Sim is the CNPG stand-in, for Addr and fault injection.
	Sim *cnpgsim.Simulator
	// Dir is the state directory.
	Dir string
	// KubeconfigPath is Dir/kubeconfig, an admin kubeconfig.
	KubeconfigPath string
	// HostMapPath is Dir/hostmap.json, for the operator's
	// --postgres-host-map flag.
	HostMapPath string

	cancel  context.CancelFunc
	simDone chan error
}

// Start brings the sandbox up. On error, whatever started is stopped.
func Start(ctx context.Context, opts Options) (sb *Sandbox, err error) {
	if opts.Dir == "" {
		opts.Dir = ".sandbox"
	}
	dir, err := filepath.Abs(opts.Dir)
	if err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create state directory: %w", err)
	}
	sb = &Sandbox{
		Dir:            dir,
		KubeconfigPath: filepath.Join(dir, "kubeconfig"),
		HostMapPath:    filepath.Join(dir, "hostmap.json"),
	}
	defer func() {
		if err != nil {
			sb.Stop()
			sb = nil
		}
	}()
	logger := klog.FromContext(ctx)
	logger.Info("Starting control plane (etcd, kube-apiserver, kube-controller-manager, CloudNativePG's webhooks)")
	if sb.Env, err = envtest.Start(ctx, envtest.Options{}); err != nil {
		return sb, fmt.Errorf("start control plane: %w", err)
	}
	kubeconfig, err := os.ReadFile(sb.Env.KubeconfigPath)
	if err != nil {
		return sb, fmt.Errorf("read kubeconfig: %w", err)
	}
	if err := os.WriteFile(sb.KubeconfigPath, kubeconfig, 0o600); err != nil {
		return sb, fmt.Errorf("write kubeconfig: %w", err)
	}
	simOpts := opts.Simulator
	simOpts.HostMapFile = sb.HostMapPath
	if sb.Sim, err = cnpgsim.New(sb.Env.Config, simOpts); err != nil {
		return sb, fmt.Errorf("CNPG stand-in: %w", err)
	}
	// The stand-in outlives the caller's start-up context: Stop ends it.
	simCtx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	sb.cancel, sb.simDone = cancel, make(chan error, 1)
	go func() { sb.simDone <- sb.Sim.Run(simCtx) }()
	return sb, nil
}

// Stop ends the stand-in (stopping every Postgres server and removing its
// data), then the control plane, and removes the kubeconfig and host map.
// It is safe to call more than once.
func (sb *Sandbox) Stop() {
	if sb.cancel != nil {
		sb.cancel()
		select {
		case <-sb.simDone:
		case <-time.After(time.Minute):
		}
		sb.cancel = nil
	}
	if sb.Env != nil {
		sb.Env.Stop()
		sb.Env = nil
	}
	for _, f := range []string{sb.KubeconfigPath, sb.HostMapPath} {
		if err := os.Remove(f); err != nil && !errors.Is(err, os.ErrNotExist) {
			fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		}
	}
	// Only if empty: the directory may hold someone else's files.
	_ = os.Remove(sb.Dir)
}
