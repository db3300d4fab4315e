package cnpgsim_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"k8s.io/client-go/kubernetes"
	"k8s.io/klog/v2"

	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/test/cnpgsim"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// sharedLabel marks the objects served by the shared-backend Simulator; the
// dedicated one ignores them.
const sharedLabel = "cnpgsim.setpoint.dev/shared"

var (
	kube        kubernetes.Interface
	pg          versioned.Interface
	sim         *cnpgsim.Simulator // one server per Cluster
	sharedSim   *cnpgsim.Simulator // SharedBackend, for objects with sharedLabel
	hostMapFile string
)

// TestMain starts one control plane and two Simulators for the package. It
// does not use envtest.RunMain because the Simulators must stop (and
// remove their servers) before the control plane does.
func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	flag.Parse()
	// The package's pure unit tests (SCRAM, quoting, config files, the
	// work loop) need no control plane: they run in -short mode (`make
	// unit`) and without built binaries; only the integration tests skip.
	if testing.Short() {
		fmt.Fprintln(os.Stderr, "cnpgsim: -short: running only the tests that need no control plane")
		return m.Run()
	}
	// Without built binaries the package fails with one line, unless
	// SETPOINT_SKIP_INTEGRATION=1 asks to run only the pure tests.
	if d := envtest.Decide(); !d.Run {
		d.Report()
		if d.Exit != 0 {
			return d.Exit
		}
		return m.Run()
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	env, err := envtest.Start(ctx, envtest.Options{})
	if err != nil {
		fmt.Fprintf(os.Stderr, "cnpgsim: start control plane: %v\n", err)
		return 1
	}
	defer env.Stop()
	kube = kubernetes.NewForConfigOrDie(env.Config)
	pg = versioned.NewForConfigOrDie(env.Config)
	hostMapFile = filepath.Join(env.Dir(), "hostmap.json")

	// Quiet by default; -v shows info logs, CNPGSIM_V=N klog's level N.
	logger := klog.Background()
	if v := os.Getenv("CNPGSIM_V"); v != "" {
		fs := flag.NewFlagSet("klog", flag.ContinueOnError)
		klog.InitFlags(fs)
		_ = fs.Set("v", v)
	} else if !testing.Verbose() {
		logger = logger.V(10)
	}
	ctx = klog.NewContext(ctx, logger)

	stops := []func(){}
	defer func() {
		cancel()
		for _, stop := range stops {
			stop()
		}
	}()
	for _, cfg := range []struct {
		into *(*cnpgsim.Simulator)
		opts cnpgsim.Options
	}{
		{&sim, cnpgsim.Options{HostMapFile: hostMapFile, Selector: "!" + sharedLabel, ResizeDelay: resizeDelay}},
		{&sharedSim, cnpgsim.Options{SharedBackend: true, Selector: sharedLabel}},
	} {
		s, err := cnpgsim.New(env.Config, cfg.opts)
		if err != nil {
			fmt.Fprintf(os.Stderr, "cnpgsim: %v\n", err)
			return 1
		}
		*cfg.into = s
		done := make(chan error, 1)
		go func() { done <- s.Run(ctx) }()
		stops = append(stops, func() {
			if err := <-done; err != nil {
				fmt.Fprintf(os.Stderr, "cnpgsim: run: %v\n", err)
			}
		})
	}
	return m.Run()
}
