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

	"k8s.io/component-base/logs"
	logsapi "k8s.io/component-base/logs/api/v1"
	"k8s.io/klog/v2"

	"github.com/setpoint-dev/setpoint/pkg/operator"
	"github.com/setpoint-dev/setpoint/pkg/version"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintf(os.Stderr, "setpoint: %v\n", err)
		logs.FlushLogs()
		os.Exit(1)
	}
	logs.FlushLogs()
}

func run() error {
	var o options
	logCfg := logsapi.NewLoggingConfiguration()
	fs, showVersion := newFlags(&o, logCfg)
	if err := fs.Parse(os.Args[1:]); err != nil {
		return err
	}
	applyMemProfileRate(o.profilingAddr)
	if *showVersion {
		fmt.Println(version.Get())
		return nil
	}
	// Applied first, so everything after logs in the chosen format.
	if err := logsapi.ValidateAndApply(logCfg, nil); err != nil {
		return fmt.Errorf("logging: %w", err)
	}
	logs.InitLogs()
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
	if soft := applyDefaultMemoryLimit("/"); soft > 0 {
		logger.Info("Go memory limit set from the cgroup's", "bytes", soft)
	}
	if pct := applyDefaultGCPercent(); pct > 0 {
		logger.Info("Go GC percent set (GOGC unset)", "percent", pct)
	}
	ctx = klog.NewContext(ctx, logger)
	v := version.Get()
	logger.Info("Starting", "version", v.Version, "commit", v.Commit, "goVersion", v.GoVersion,
		"namespace", cfg.Namespace, "leaderElect", cfg.LeaderElect)
	return operator.Run(ctx, cfg)
}

// newFlags is the operator's whole flag set (docs/reference/flags.md is
// generated from it): o's, the logging flags, and --version.
func newFlags(o *options, logCfg *logsapi.LoggingConfiguration) (*flag.FlagSet, *bool) {
	fs := flag.NewFlagSet("setpoint", flag.ExitOnError)
	addLoggingFlags(fs, logCfg)
	showVersion := fs.Bool("version", false, "Print the version, commit and Go version, and exit.")
	o.bind(fs)
	return fs, showVersion
}
