// Command sandbox runs setpoint's local sandbox: a real control plane with
// setpoint's and CloudNativePG's CRDs, and the CNPG stand-in serving every
// CNPG Cluster from a real Postgres server. It writes .sandbox/kubeconfig
// and .sandbox/hostmap.json, prints how to use them, and on Ctrl-C (or
// SIGTERM) stops everything and removes what it wrote.
//
// With -demo (what `make demo` runs) it also runs the operator, applies
// manifests/samples, narrates the PostgresCluster and PostgresDatabase
// becoming Ready, and uses the database as an application would
// (test/demo). With -cnpg real (`make demo CNPG=real`) all of it runs on
// real CloudNativePG instead, on the real-CNPG tier's one-node Kubernetes,
// with setpoint's release in-cluster (real.go).
//
//	go run ./test/sandbox [-dir .sandbox] [-shared-backend] [-cnpg standin|real] [-demo [-exit]]
package main

import (
	"context"
	"flag"
	"fmt"
	"net"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/setpoint-dev/setpoint/test/cnpgsim"
	"github.com/setpoint-dev/setpoint/test/sandbox/internal/sandbox"
)

type options struct {
	dir, samples, metrics, cnpg string
	shared, demo, exit, logs    bool
}

func main() {
	var o options
	flag.StringVar(&o.dir, "dir", ".sandbox", "state directory for kubeconfig and hostmap.json")
	flag.BoolVar(&o.shared, "shared-backend", false, "serve every CNPG Cluster from one Postgres server")
	flag.BoolVar(&o.demo, "demo", false, "run the operator, apply the samples and show a database becoming Ready and usable")
	flag.StringVar(&o.samples, "samples", "manifests/samples", "with -demo: the objects to apply")
	flag.StringVar(&o.metrics, "metrics-bind-address", "127.0.0.1:8080", "with -demo: the operator's /metrics address")
	flag.BoolVar(&o.exit, "exit", false, "with -demo: stop once the demo has shown a usable database")
	flag.StringVar(&o.cnpg, "cnpg", "standin", "standin: the control plane and the CNPG stand-in; real: real CloudNativePG on a one-node Kubernetes (root; make demo CNPG=real)")
	flag.BoolVar(&o.logs, "show-logs", false, "print the operator's and the sandbox's log lines on the terminal instead of into <dir>/"+logFile)
	klog.InitFlags(nil)
	flag.Parse()
	logPath, closeLog := "", klog.Flush
	if !o.logs {
		var err error
		if logPath, closeLog, err = redirectLogs(o.dir); err != nil {
			fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
			os.Exit(1)
		}
		fmt.Printf("sandbox: starting; logs: %s (-show-logs prints them here)\n", logPath)
	}
	restoreTerminal := takeTerminal()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, o)
	stop()
	restoreTerminal()
	closeLog()
	if err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		if logPath != "" {
			fmt.Fprintf(os.Stderr, "sandbox: the log lines are in %s\n", logPath)
		}
		os.Exit(1)
	}
}

func run(ctx context.Context, o options) error {
	ctx = klog.NewContext(ctx, klog.Background())
	switch o.cnpg {
	case "real":
		return runReal(ctx, o)
	case "standin":
	default:
		return fmt.Errorf("-cnpg %q: want standin or real", o.cnpg)
	}
	sb, err := sandbox.Start(ctx, sandbox.Options{Dir: o.dir, Simulator: cnpgsim.Options{SharedBackend: o.shared, SecretRace: true}})
	if err != nil {
		return interrupted(ctx, "sandbox: interrupted while starting", err)
	}
	defer func() {
		fmt.Println("sandbox: stopping: operator, Postgres servers, control plane, state files")
		sb.Stop()
		fmt.Println("sandbox: stopped, nothing left running")
	}()
	fmt.Printf(`sandbox: ready
  kubeconfig: %[1]s
  host map:   %[2]s
  kubectl:    export KUBECONFIG=%[1]s; kubectl get pgc,pgdb -A
`, sb.KubeconfigPath, sb.HostMapPath)
	if !o.demo {
		fmt.Printf("  operator:   go run ./cmd/setpoint --kubeconfig %s --postgres-host-map %s --leader-elect=false\nCtrl-C stops everything.\n",
			sb.KubeconfigPath, sb.HostMapPath)
		<-ctx.Done()
		return nil
	}
	return standInDemo(ctx, sb, o)
}

// standInDemo runs the operator beside the sandbox and walks through the samples.
func standInDemo(ctx context.Context, sb *sandbox.Sandbox, o options) error {
	if l, err := net.Listen("tcp", o.metrics); err != nil {
		fmt.Printf("  metrics:    %s is taken (%v); the demo's operator serves no metrics\n", o.metrics, err)
		o.metrics = "0"
	} else {
		l.Close()
	}
	opCtx, stopOperator := context.WithCancel(ctx)
	var opErr error
	opDone := make(chan struct{}) // closed when the operator returns
	go func() { opErr = sb.RunOperator(opCtx, o.metrics); close(opDone) }()
	defer func() { stopOperator(); <-opDone }()
	if o.metrics != "0" {
		fmt.Printf("  operator:   running in this process (metrics on http://%s/metrics)\n", o.metrics)
	}
	demoCtx, stopDemo := context.WithCancel(ctx)
	defer stopDemo()
	// An operator that fails to start ends the demo at once, not after
	// the demo's own timeout.
	go func() {
		select {
		case <-opDone:
			stopDemo()
		case <-demoCtx.Done():
		}
	}()
	if err := sb.Demo(demoCtx, os.Stdout, o.samples); err != nil {
		select {
		case <-opDone:
			if ctx.Err() == nil {
				return fmt.Errorf("operator stopped: %v", opErr)
			}
		default:
		}
		return interrupted(ctx, "demo: interrupted", err)
	}
	fmt.Println("demo: the database is Ready and usable.")
	if o.exit {
		return nil
	}
	fmt.Println("Explore with kubectl (see above); Ctrl-C stops everything.")
	select {
	case <-ctx.Done():
		return nil
	case <-opDone:
		// Ctrl-C stops the operator too; only a stop of its own is an error.
		return interrupted(ctx, "", fmt.Errorf("operator stopped: %v", opErr))
	}
}

// interrupted turns err into a clean stop when it came from Ctrl-C (or
// SIGTERM): the user asked to stop, so `make demo` must end with status 0.
func interrupted(ctx context.Context, msg string, err error) error {
	if ctx.Err() == nil {
		return err
	}
	if msg != "" {
		fmt.Println(msg)
	}
	return nil
}
