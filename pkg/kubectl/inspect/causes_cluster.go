package inspect

import (
	"context"
	"fmt"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// clusterCauses looks at the children behind a cluster's unmet condition.
func (r Reader) clusterCauses(ctx context.Context, c *pgv1.PostgresCluster, condition string) ([]Cause, error) {
	switch condition {
	case pgv1.ConditionSecretReady:
		return children(ctx, "Secret", []string{superuserSecret(c)}, r.Kube.CoreV1().Secrets(r.Namespace).Get, exists)
	case pgv1.ConditionObjectStoreReady:
		return r.objectStoreCause(ctx, naming.ObjectStore(c.Name))
	case pgv1.ConditionProvisionerReady:
		return r.cnpgClusterCause(ctx, c.Name)
	case pgv1.ConditionCertificatesReady:
		names := []string{naming.ClientCASecret(c.Name), naming.ReplicationTLSSecret(c.Name), naming.ServerCASecret(c.Name)}
		return children(ctx, "Secret", names, r.Kube.CoreV1().Secrets(r.Namespace).Get, exists)
	case pgv1.ConditionMonitorReady:
		return r.roleCauses(ctx, c.Name, []string{naming.MonitorRole})
	case pgv1.ConditionPoolerReady:
		return r.poolerCauses(ctx, c.Name)
	case pgv1.ConditionBackupReady:
		return r.scheduledBackupCauses(ctx, c)
	case pgv1.ConditionConfigMapReady:
		// The ConfigMap waits for CNPG's CA Secret (WaitingForCA).
		return children(ctx, "Secret", []string{naming.CASecret(c.Name)}, r.Kube.CoreV1().Secrets(r.Namespace).Get, exists)
	case pgv1.ConditionPodMonitorReady:
		return nil, nil
	}
	return nil, nil
}

func superuserSecret(c *pgv1.PostgresCluster) string {
	if pc := c.Spec.PasswordConfig; pc != nil && pc.SuperuserExternalSecretRef != nil {
		return pc.SuperuserExternalSecretRef.Name
	}
	return naming.SuperuserSecret(c.Name)
}

func (r Reader) objectStoreCause(ctx context.Context, name string) ([]Cause, error) {
	return children(ctx, "ObjectStore", []string{name}, r.PG.BarmanCloudV1().ObjectStores(r.Namespace).Get, exists)
}

// cnpgClusterCause quotes CNPG's phase and reason: what CNPG itself says
// about the Cluster setpoint applied.
func (r Reader) cnpgClusterCause(ctx context.Context, name string) ([]Cause, error) {
	return children(ctx, "Cluster.postgresql.cnpg.io", []string{name}, r.PG.CNPGV1().Clusters(r.Namespace).Get,
		func(o *cnpgv1.Cluster) string {
			st := o.Status
			s := fmt.Sprintf("%q (%d/%d instances ready)", st.Phase, st.ReadyInstances, st.Instances)
			if st.PhaseReason != "" {
				s += ": " + st.PhaseReason
			}
			return s
		})
}

func (r Reader) poolerCauses(ctx context.Context, cluster string) ([]Cause, error) {
	names := naming.Poolers(cluster)
	return children(ctx, "Pooler", names, r.PG.CNPGV1().Poolers(r.Namespace).Get, func(p *cnpgv1.Pooler) string {
		want := int32(1)
		if p.Spec.Instances != nil {
			want = *p.Spec.Instances
		}
		return fmt.Sprintf("%d of %d PgBouncer instance(s) created (kubectl get deployment %s)", p.Status.Instances, want, p.Name)
	})
}

// scheduledBackupCauses quotes status.error of the ScheduledBackups the
// cluster's status lists.
func (r Reader) scheduledBackupCauses(ctx context.Context, c *pgv1.PostgresCluster) ([]Cause, error) {
	if c.Status.BackupStatus == nil {
		return nil, nil
	}
	return children(ctx, "ScheduledBackup", c.Status.BackupStatus.ScheduledBackups, r.PG.CNPGV1().ScheduledBackups(r.Namespace).Get,
		func(o *cnpgv1.ScheduledBackup) string { return o.Status.Error })
}
