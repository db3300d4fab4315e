// Command sandbox runs setpoint's local sandbox: a real control plane with
// setpoint's and CloudNativePG's CRDs, and the CNPG stand-in serving every
// CNPG Cluster from a real Postgres server. It writes .sandbox/kubeconfig
// and .sandbox/hostmap.json, prints how to use them, and on Ctrl-C (or
// SIGTERM) stops everything and removes what it wrote.
//
//	go run ./test/sandbox [-dir .sandbox] [-shared-backend] [-demo-cluster NAME]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/setpoint-dev/setpoint/test/cnpgsim"
	"github.com/setpoint-dev/setpoint/test/sandbox/internal/sandbox"
)

func main() {
	dir := flag.String("dir", ".sandbox", "state directory for kubeconfig and hostmap.json")
	shared := flag.Bool("shared-backend", false, "serve every CNPG Cluster from one Postgres server")
	demo := flag.String("demo-cluster", "", "if set, create a CNPG Cluster of this name in namespace default and connect to it")
	klog.InitFlags(nil)
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *dir, *shared, *demo); err != nil {
		fmt.Fprintf(os.Stderr, "sandbox: %v\n", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, dir string, shared bool, demo string) error {
	ctx = klog.NewContext(ctx, klog.Background())
	sb, err := sandbox.Start(ctx, sandbox.Options{Dir: dir, Simulator: cnpgsim.Options{SharedBackend: shared}})
	if err != nil {
		return err
	}
	defer func() {
		fmt.Println("sandbox: stopping: Postgres servers, control plane, state files")
		sb.Stop()
		fmt.Println("sandbox: stopped, nothing left running")
	}()
	fmt.Printf(`sandbox: ready
  kubeconfig: %[1]s
  host map:   %[2]s
  kubectl:    export KUBECONFIG=%[1]s; kubectl get clusters.postgresql.cnpg.io -A
  operator:   go run ./cmd/setpoint --kubeconfig %[1]s --postgres-host-map %[2]s
Ctrl-C stops everything.
`, sb.KubeconfigPath, sb.HostMapPath)
	if demo != "" {
		if err := sb.DemoCluster(ctx, os.Stdout, "default", demo); err != nil {
			return fmt.Errorf("demo cluster: %w", err)
		}
	}
	<-ctx.Done()
	return nil
}
