package commands

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func newRotate(o *Options) *cobra.Command {
	var id, roles string
	var cluster bool
	cmd := &cobra.Command{
		Use:   "rotate DATABASE",
		Short: "Ask setpoint to rotate generated passwords (annotation " + pgv1.RotatePasswordsAnnotation + ")",
		Long: "Sets " + pgv1.RotatePasswordsAnnotation + " to a new request id, and " + pgv1.RotatePasswordsRolesAnnotation +
			" to --roles (removed without it: every role). setpoint writes the new passwords; CloudNativePG applies them.",
		Args: cobra.ExactArgs(1),
	}
	cmd.Flags().StringVar(&id, "id", "", "request id (default: the current UTC time, 20261130180101)")
	cmd.Flags().StringVar(&roles, "roles", "", "only these roles: kinds (admin, rw, ro) or role names, comma-separated")
	cmd.Flags().BoolVar(&cluster, "cluster", false, "rotate the generated superuser password of a PostgresCluster instead")
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		if id == "" {
			id = requestID(time.Now())
		}
		if cluster {
			if roles != "" {
				return fmt.Errorf("--roles applies to a PostgresDatabase, not to a PostgresCluster")
			}
			return rotateCluster(ctx, o, c, args[0], id)
		}
		return rotateDatabase(ctx, o, c, args[0], id, roles)
	})
	return cmd
}

func rotateDatabase(ctx context.Context, o *Options, c *clients, name, id, roles string) error {
	ann := map[string]*string{pgv1.RotatePasswordsAnnotation: &id, pgv1.RotatePasswordsRolesAnnotation: nil}
	if roles != "" {
		ann[pgv1.RotatePasswordsRolesAnnotation] = &roles
	}
	patch, err := annotationPatch(ann)
	if err != nil {
		return err
	}
	if _, err := c.pg.PostgresV1alpha1().PostgresDatabases(c.namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("annotate PostgresDatabase %s/%s: %w", c.namespace, name, err)
	}
	fmt.Fprintf(o.Streams.Out, "postgresdatabase/%s: rotation %s requested; condition %s reports it\n", name, id, pgv1.ConditionPasswordRotation)
	return nil
}

func rotateCluster(ctx context.Context, o *Options, c *clients, name, id string) error {
	patch, err := annotationPatch(map[string]*string{pgv1.RotatePasswordsAnnotation: &id})
	if err != nil {
		return err
	}
	if _, err := c.pg.PostgresV1alpha1().PostgresClusters(c.namespace).Patch(ctx, name, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		return fmt.Errorf("annotate PostgresCluster %s/%s: %w", c.namespace, name, err)
	}
	fmt.Fprintf(o.Streams.Out, "postgrescluster/%s: superuser rotation %s requested; status.superuserPasswordRotation reports it\n", name, id)
	return nil
}
