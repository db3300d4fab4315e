package main

import (
	"context"
	"fmt"
	"os"
	"time"

	"k8s.io/client-go/kubernetes"

	"github.com/setpoint-dev/setpoint/test/demo"
	"github.com/setpoint-dev/setpoint/test/realcnpg"
)

// runReal is `make demo CNPG=real`: the demo on real CloudNativePG, on the
// real one-node Kubernetes of the real-CNPG tier, with setpoint's release
// running in-cluster as a user installs it. The samples are fitted to the
// node (demo.NodeSite.Fit says how).
func runReal(ctx context.Context, o options) error {
	s, err := realcnpg.FindSetup()
	if err != nil {
		return fmt.Errorf("real CNPG: %w (make demo CNPG=real builds what it needs)", err)
	}
	fmt.Println("sandbox: starting a one-node Kubernetes with CloudNativePG and setpoint (a few minutes)")
	n, err := realcnpg.Start(ctx, s, realcnpg.StartOptions{CallerStops: true, Progress: os.Stdout})
	if err != nil {
		return interrupted(ctx, "sandbox: interrupted while starting", err)
	}
	defer func() {
		fmt.Println("sandbox: stopping the node: every process it started, its network namespace, its sysctls")
		if err := n.Stop(); err != nil {
			fmt.Fprintf(os.Stderr, "sandbox: stop the node: %v\n", err)
			return
		}
		fmt.Println("sandbox: stopped, nothing left running")
	}()
	fmt.Printf(`sandbox: ready
  kubeconfig: %[1]s
  kubectl:    export KUBECONFIG=%[1]s; kubectl get pgc,pgdb,pods -A
  operator:   setpoint's release, in-cluster (kubectl -n setpoint-system logs deploy/setpoint)
`, n.KubeconfigPath)
	if !o.demo {
		fmt.Println("Ctrl-C stops everything.")
		<-ctx.Done()
		return nil
	}
	kube, err := kubernetes.NewForConfig(n.Config)
	if err != nil {
		return err
	}
	site := demo.NodeSite{PostgresImage: s.Images.Ref("postgresql"), StorageClass: "local",
		S3Endpoint: realcnpg.S3Endpoint, S3Bucket: realcnpg.S3Bucket}
	err = demo.Run(ctx, os.Stdout, demo.Options{Config: n.Config, Samples: o.samples, Fit: site.Fit,
		Connect: demo.NodeConnector(kube, n.Dial), Timeout: 10 * time.Minute})
	if err != nil {
		return interrupted(ctx, "demo: interrupted", err)
	}
	fmt.Println("demo: the database is Ready and usable, on real CloudNativePG.")
	if o.exit {
		return nil
	}
	fmt.Println("Explore with kubectl (see above); Ctrl-C stops everything.")
	<-ctx.Done()
	return nil
}
