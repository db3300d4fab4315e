// Command setpoint is the operator: it turns PostgresClusters and
// PostgresDatabases into CloudNativePG objects, Secrets, ConfigMaps and SQL
// privileges. It runs in a cluster (see manifests/) or against a
// kubeconfig.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"k8s.io/klog/v2"

	"github.com/setpoint-dev/setpoint/pkg/operator"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "setpoint: %v\n", err)
		klog.Flush()
		os.Exit(1)
	}
	klog.Flush()
}

func run() error {
	fs := flag.NewFlagSet("setpoint", flag.ExitOnError)
	klog.InitFlags(fs)
	var o options
	o.bind(fs)
	if err := fs.Parse(os.Args[1:]); err != nil {
		return err
	}
	if err := o.validate(); err != nil {
		return err
	}
	cfg, err := o.config()
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	logger := klog.Background().WithName("setpoint")
	ctx = klog.NewContext(ctx, logger)
	logger.Info("Starting", "namespace", cfg.Namespace, "leaderElect", cfg.LeaderElect)
	return operator.Run(ctx, cfg)
}
