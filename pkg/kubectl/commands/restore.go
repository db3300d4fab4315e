package commands

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

type restoreFlags struct {
	to, as, objectStore string
	apply               bool
}

func newRestore(o *Options) *cobra.Command {
	var f restoreFlags
	cmd := &cobra.Command{
		Use:   "restore CLUSTER --as NAME [--to TIME]",
		Short: "Print (or --apply) a PostgresCluster that restores CLUSTER's backups into a new cluster",
		Long: "The new PostgresCluster has CLUSTER's class and settings and spec.restore with CLUSTER's serverName " +
			"(status.backupStatus.serverName) and --to as targetTime; setpoint and CloudNativePG do the restore.",
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().StringVar(&f.to, "to", "", "point in time to restore to, RFC 3339 (2026-11-30T17:45:00Z); default: every archived change")
	cmd.Flags().StringVar(&f.as, "as", "", "name of the new PostgresCluster (required)")
	cmd.Flags().StringVar(&f.objectStore, "object-store", "", "ObjectStore to read the backups from (default: the new cluster's own)")
	cmd.Flags().BoolVar(&f.apply, "apply", false, "create the PostgresCluster instead of printing it")
	_ = cmd.MarkFlagRequired("as")
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		src, err := c.pg.PostgresV1alpha1().PostgresClusters(c.namespace).Get(ctx, args[0], metav1.GetOptions{})
		if err != nil {
			return fmt.Errorf("get PostgresCluster %s/%s: %w", c.namespace, args[0], err)
		}
		pc, err := RestoreManifest(src, f.as, f.to, f.objectStore)
		if err != nil {
			return err
		}
		if !f.apply {
			b, err := yaml.Marshal(pc)
			if err != nil {
				return fmt.Errorf("encode manifest: %w", err)
			}
			_, err = o.Streams.Out.Write(b)
			return err
		}
		if _, err := c.pg.PostgresV1alpha1().PostgresClusters(c.namespace).Create(ctx, pc, metav1.CreateOptions{}); err != nil {
			return fmt.Errorf("create PostgresCluster %s/%s: %w", c.namespace, f.as, err)
		}
		fmt.Fprintf(o.Streams.Out, "postgrescluster/%s created (kubectl wait --for=condition=Ready pgc/%s)\n", f.as, f.as)
		return nil
	})
	return cmd
}

// RestoreManifest is the PostgresCluster "Restore into a new cluster"
// (docs/guides/backup-and-restore.md) shows: src's class and settings, spec.restore naming src's
// serverName (the folder its backups are in), and the target time. The
// operator decides everything else, and the API server judges it.
func RestoreManifest(src *pgv1.PostgresCluster, name, to, objectStore string) (*pgv1.PostgresCluster, error) {
	restore := &pgv1.RestoreSpec{Source: src.Name, ObjectStoreName: objectStore}
	if b := src.Status.BackupStatus; b != nil && b.ServerName != "" {
		restore.Source = b.ServerName
	}
	if to != "" {
		t, err := time.Parse(time.RFC3339, to)
		if err != nil {
			return nil, fmt.Errorf("--to %q: want RFC 3339, e.g. 2026-11-30T17:45:00Z: %w", to, err)
		}
		restore.TargetTime = &metav1.Time{Time: t.UTC()}
	}
	pc := &pgv1.PostgresCluster{
		TypeMeta:   metav1.TypeMeta{APIVersion: pgv1.SchemeGroupVersion.String(), Kind: "PostgresCluster"},
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: src.Namespace},
		Spec: pgv1.PostgresClusterSpec{
			Class:           src.Spec.Class,
			ClusterSettings: *src.Spec.ClusterSettings.DeepCopy(),
			Restore:         restore,
		},
	}
	return pc, nil
}
