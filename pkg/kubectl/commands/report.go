package commands

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/setpoint-dev/setpoint/pkg/kubectl/bundle"
	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
)

// The operator as install.yaml and the chart deploy it.
const (
	defaultOperatorNamespace = "setpoint-system"
	defaultOperatorSelector  = "app.kubernetes.io/name=setpoint"
)

type reportFlags struct {
	file, operatorNamespace, operatorSelector string
	tail                                      int64
}

func newReport(o *Options) *cobra.Command {
	var f reportFlags
	cmd := &cobra.Command{
		Use:   "report CLUSTER",
		Short: "Write a support bundle of a PostgresCluster (.tar.gz): objects, Events, conditions, Pod states, logs; Secrets by name and keys only",
		Long: "The bundle holds the PostgresCluster, its PostgresDatabases, the CloudNativePG objects of its cluster, " +
			"its Pods' states, their Events, the instances' logs and the operator's log lines about the namespace, " +
			"with `status` and `explain` screens. Secrets appear by name and keys; every value of every Secret of the " +
			"namespace, and any password in a connection string, is replaced by [REDACTED] (README.txt in the bundle says what it holds).",
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().StringVarP(&f.file, "file", "f", "", "where to write the bundle; - for stdout (default: setpoint-report-NAMESPACE-CLUSTER-TIME.tar.gz)")
	cmd.Flags().StringVar(&f.operatorNamespace, "operator-namespace", defaultOperatorNamespace, "the operator's namespace, for its logs")
	cmd.Flags().StringVar(&f.operatorSelector, "operator-selector", defaultOperatorSelector, "the label selector of the operator's Pods")
	cmd.Flags().Int64Var(&f.tail, "tail", 10000, "lines of each container's log (0: all)")
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		cluster, now := args[0], time.Now().UTC()
		col := bundle.Collector{Kube: c.kube, Dynamic: c.dyn, Namespace: c.namespace,
			OperatorNamespace: f.operatorNamespace, OperatorSelector: f.operatorSelector, TailLines: f.tail}
		b, err := col.Collect(ctx, cluster)
		if err != nil {
			return err
		}
		addScreens(ctx, b, c.reader(), cluster, now)
		dir := fmt.Sprintf("setpoint-report-%s-%s-%s", c.namespace, cluster, now.Format("20060102T150405Z"))
		return writeReport(o, b, f.file, dir, cluster, c.namespace, now)
	})
	return cmd
}

// addScreens adds what status and explain show, for a reader without the
// plugin; a screen that cannot be made says why in its place.
func addScreens(ctx context.Context, b *bundle.Bundle, r inspect.Reader, cluster string, now time.Time) {
	var status, explain bytes.Buffer
	rep, err := r.ClusterReport(ctx, cluster)
	if err == nil {
		err = inspect.WriteClusterReport(&status, rep, now)
	}
	if err != nil {
		fmt.Fprintf(&status, "status: %v\n", err)
	}
	explainTo(ctx, &explain, r.ExplainCluster, cluster)
	for _, d := range rep.Databases {
		explain.WriteString("\n")
		explainTo(ctx, &explain, r.ExplainDatabase, d.Name)
	}
	b.Add("status.txt", status.Bytes())
	b.Add("explain.txt", explain.Bytes())
}

func explainTo(ctx context.Context, w io.Writer, explain func(context.Context, string) (*inspect.Explanation, error), name string) {
	e, err := explain(ctx, name)
	if err == nil {
		err = inspect.WriteExplanation(w, e)
	}
	if err != nil {
		fmt.Fprintf(w, "explain %s: %v\n", name, err)
	}
}

func writeReport(o *Options, b *bundle.Bundle, file, dir, cluster, namespace string, now time.Time) error {
	if file == "-" {
		return b.WriteTarGz(o.Streams.Out, dir, cluster, namespace, now)
	}
	if file == "" {
		file = dir + ".tar.gz"
	}
	out, err := os.OpenFile(file, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("bundle file: %w", err)
	}
	if err := b.WriteTarGz(out, dir, cluster, namespace, now); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("bundle file: %w", err)
	}
	fmt.Fprintf(o.Streams.Out, "%s written (%d files; Secrets by name and keys only; tar -tzf %s lists them)\n", file, len(b.Files()), file)
	return nil
}
