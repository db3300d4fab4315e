package commands

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/spf13/cobra"
	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

func newPromote(o *Options) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "promote CLUSTER INSTANCE",
		Short: "Switch a PostgresCluster's primary over to one of its replicas, as CloudNativePG's own switchover does",
		Long: "Sets status.targetPrimary of setpoint's CNPG Cluster to INSTANCE (a Pod of the cluster), with an " +
			"optimistic lock, as `kubectl cnpg promote` does; CloudNativePG then demotes the primary and promotes INSTANCE. " +
			"Refused when the CNPG Cluster is not setpoint's, INSTANCE is not an instance of it, or a switchover or failover " +
			"is already under way. No Pod is deleted (docs/adr/0018-day-two-actions-through-cnpg.md).",
		Args: cobra.ExactArgs(2),
	}
	cmd.RunE = o.run(func(ctx context.Context, c *clients, args []string) error {
		cluster, instance := args[0], args[1]
		cnpg, err := setpointsCNPGCluster(ctx, c, cluster)
		if err != nil {
			return err
		}
		st := cnpg.Status
		if st.CurrentPrimary == instance && st.TargetPrimary == instance {
			fmt.Fprintf(o.Streams.Out, "%s is the primary of %s already\n", instance, cluster)
			return nil
		}
		if st.TargetPrimary != st.CurrentPrimary {
			return fmt.Errorf("a switchover or failover of %s is under way (currentPrimary %s, targetPrimary %s): wait for it to end",
				cluster, orNone(st.CurrentPrimary), orNone(st.TargetPrimary))
		}
		if err := isInstance(ctx, c, cluster, instance); err != nil {
			return err
		}
		patch, err := targetPrimaryPatch(cnpg, instance, time.Now())
		if err != nil {
			return err
		}
		if _, err := c.pg.CNPGV1().Clusters(c.namespace).Patch(ctx, cluster, types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
			return fmt.Errorf("set targetPrimary of CNPG Cluster %s/%s: %w", c.namespace, cluster, err)
		}
		fmt.Fprintf(o.Streams.Out, "cluster.postgresql.cnpg.io/%s: switchover to %s requested; kubectl setpoint status %s shows it\n", cluster, instance, cluster)
		return nil
	})
	return cmd
}

// setpointsCNPGCluster is the CNPG Cluster of PostgresCluster name, when
// setpoint made it: controlled by that PostgresCluster's UID. The plugin
// switches over only a cluster it can prove is setpoint's.
func setpointsCNPGCluster(ctx context.Context, c *clients, name string) (*cnpgv1.Cluster, error) {
	pc, err := c.pg.PostgresV1alpha1().PostgresClusters(c.namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get PostgresCluster %s/%s: %w", c.namespace, name, err)
	}
	cnpg, err := c.pg.CNPGV1().Clusters(c.namespace).Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get CNPG Cluster %s/%s: %w", c.namespace, name, err)
	}
	if ref := metav1.GetControllerOfNoCopy(cnpg); ref == nil || ref.UID != pc.UID {
		return nil, fmt.Errorf("CNPG Cluster %s/%s is not controlled by PostgresCluster %s (UID %s): it is not setpoint's, and the plugin leaves it alone",
			c.namespace, name, name, pc.UID)
	}
	return cnpg, nil
}

// isInstance: instance is a Pod CloudNativePG runs for the cluster's
// Postgres (labelled cnpg.io/cluster, not a PgBouncer Pod).
func isInstance(ctx context.Context, c *clients, cluster, instance string) error {
	pod, err := c.kube.CoreV1().Pods(c.namespace).Get(ctx, instance, metav1.GetOptions{})
	if err == nil && pod.Labels["cnpg.io/cluster"] == cluster && pod.Labels["cnpg.io/poolerName"] == "" {
		return nil
	}
	list, lerr := c.kube.CoreV1().Pods(c.namespace).List(ctx, metav1.ListOptions{LabelSelector: instanceSelector(cluster)})
	if lerr != nil {
		return fmt.Errorf("list the instances of %s: %w", cluster, lerr)
	}
	return fmt.Errorf("%s is not an instance of %s (its instances: %v)", instance, cluster, podNames(list.Items))
}

func podNames(pods []corev1.Pod) []string {
	out := []string{}
	for _, p := range pods {
		out = append(out, p.Name)
	}
	return out
}

// targetPrimaryPatch is the status change CloudNativePG's own promote
// makes: the new target, when it was asked for (RFC 3339 with
// microseconds, the form CNPG parses), the switchover phase with its
// reason, and the Ready condition False. A merge patch replaces the
// conditions whole, so they are sent as read, Ready changed; the
// resourceVersion makes the patch a compare-and-swap: a status CNPG
// changed since it was read refuses it (409) instead of being overwritten.
func targetPrimaryPatch(cnpg *cnpgv1.Cluster, instance string, now time.Time) ([]byte, error) {
	conds := append([]metav1.Condition(nil), cnpg.Status.Conditions...)
	apimeta.SetStatusCondition(&conds, metav1.Condition{Type: "Ready", Status: metav1.ConditionFalse,
		Reason: "ClusterIsNotReady", Message: "Cluster Is Not Ready"})
	b, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": cnpg.ResourceVersion},
		"status": map[string]any{
			"targetPrimary":          instance,
			"targetPrimaryTimestamp": now.Format(metav1.RFC3339Micro),
			"phase":                  "Switchover in progress",
			"phaseReason":            "Switching over to " + instance,
			"conditions":             conds,
		},
	})
	if err != nil {
		return nil, fmt.Errorf("encode patch: %w", err)
	}
	return b, nil
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}
