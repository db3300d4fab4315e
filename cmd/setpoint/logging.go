package main

import (
	"flag"

	logsapi "k8s.io/component-base/logs/api/v1"
	// Registers the "json" log format, as Kubernetes components do.
	_ "k8s.io/component-base/logs/json/register"
)

// loggingFlags are the flags of component-base's logging configuration that
// setpoint exposes, by their component-base name. The alpha options
// (--log-*-split-stream, --log-*-info-buffer-size) are left out: they need
// the LoggingAlphaOptions feature gate, which setpoint does not offer.
var loggingFlags = map[string]string{
	"logging-format":             "log-format",
	"v":                          "v",
	"vmodule":                    "vmodule",
	logsapi.LogFlushFreqFlagName: logsapi.LogFlushFreqFlagName,
}

// addLoggingFlags binds c to fs through component-base's own flag
// definitions (so their parsing and help are Kubernetes'), with
// --logging-format spelled --log-format.
func addLoggingFlags(fs *flag.FlagSet, c *logsapi.LoggingConfiguration) {
	all := flag.NewFlagSet("logging", flag.ContinueOnError)
	logsapi.AddGoFlags(c, all)
	all.VisitAll(func(f *flag.Flag) {
		if name, ok := loggingFlags[f.Name]; ok {
			fs.Var(f.Value, name, f.Usage)
		}
	})
}
