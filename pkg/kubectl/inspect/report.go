package inspect

import (
	"fmt"
	"sort"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// ClusterReport is what `kubectl setpoint status` shows, and its -o
// json|yaml: a stable struct of its own, so scripts do not depend on the
// layout of three API kinds.
type ClusterReport struct {
	Namespace string `json:"namespace"`
	Name      string `json:"name"`
	Class     string `json:"class"`
	Phase     string `json:"phase"`
	// Current is false while status describes an older generation.
	Current    bool             `json:"current"`
	Conditions []Condition      `json:"conditions"`
	Instances  InstancesReport  `json:"instances"`
	Pooler     PoolerReport     `json:"pooler"`
	Backup     BackupReport     `json:"backup"`
	Databases  []DatabaseReport `json:"databases"`
}

// InstancesReport is the CNPG Cluster's view of its instances.
type InstancesReport struct {
	// CNPGCluster names the CNPG Cluster; empty when it does not exist.
	CNPGCluster string `json:"cnpgCluster,omitempty"`
	CNPGPhase   string `json:"cnpgPhase,omitempty"`
	CNPGReason  string `json:"cnpgPhaseReason,omitempty"`
	Desired     int    `json:"desired"`
	Ready       int    `json:"ready"`
	Primary     string `json:"primary,omitempty"`
	// TargetPrimary differs from Primary during a switchover or failover.
	TargetPrimary string   `json:"targetPrimary,omitempty"`
	Replicas      []string `json:"replicas,omitempty"`
	// ReplicationLagBytes is the largest replay lag the collector last
	// sampled (status.postgres); absent without standbys or samples.
	ReplicationLagBytes *int64       `json:"replicationLagBytes,omitempty"`
	SampledAt           *metav1.Time `json:"sampledAt,omitempty"`
	// LastReplayedAt is the commit time a replica cluster last replayed
	// from its source (status.postgres); absent on a primary.
	LastReplayedAt *metav1.Time `json:"lastReplayedAt,omitempty"`
}

// PoolerReport is the PgBouncer poolers setpoint runs for the cluster.
type PoolerReport struct {
	Enabled   bool          `json:"enabled"`
	ReadWrite *PoolerObject `json:"readWrite,omitempty"`
	ReadOnly  *PoolerObject `json:"readOnly,omitempty"`
}

// PoolerObject is one CNPG Pooler.
type PoolerObject struct {
	Name string `json:"name"`
	// Phase is what setpoint reports of it (status.connectionPoolerStatus).
	Phase string `json:"phase,omitempty"`
	// Instances is what CNPG reports in the Pooler's status (Pods created).
	Instances int32 `json:"instances"`
}

// BackupReport is the last backups and what can be restored.
type BackupReport struct {
	ObjectStore      string       `json:"objectStore,omitempty"`
	ServerName       string       `json:"serverName,omitempty"`
	ArchivePath      string       `json:"archivePath,omitempty"`
	ScheduledBackups []string     `json:"scheduledBackups,omitempty"`
	LastScheduleTime *metav1.Time `json:"lastScheduleTime,omitempty"`
	LastBackup       *metav1.Time `json:"lastSuccessfulBackup,omitempty"`
	// RecoveryWindow is from the first recoverability point to now (the
	// archived WAL after the last backup counts too); nil without one.
	RecoveryWindow *RecoveryWindow           `json:"recoveryWindow,omitempty"`
	LastRequest    *pgv1.BackupRequestStatus `json:"lastRequest,omitempty"`
	// LastFailedBackup is the plugin's last failed base backup.
	LastFailedBackup *metav1.Time `json:"lastFailedBackup,omitempty"`
	// Health is the BackupHealthy condition while it is not True, with
	// what to do; nil when backups are healthy.
	Health *BackupHealth `json:"health,omitempty"`
}

// RecoveryWindow is the span of time a restore can target.
type RecoveryWindow struct {
	From metav1.Time `json:"from"`
}

// DatabaseReport is one PostgresDatabase of the cluster.
type DatabaseReport struct {
	Name       string      `json:"name"`
	Phase      string      `json:"phase"`
	Current    bool        `json:"current"`
	Databases  []string    `json:"databases"`
	Conditions []Condition `json:"conditions"`
}

// ClusterInputs is what a report is built from; CNPG and the poolers may
// be absent (not created yet, or CNPG not installed).
type ClusterInputs struct {
	Cluster *pgv1.PostgresCluster
	CNPG    *cnpgv1.Cluster
	// InstanceNames is the CNPG Cluster's status.instanceNames, which
	// setpoint's CNPG types do not carry; read from the raw object.
	InstanceNames []string
	Poolers       []cnpgv1.Pooler
	Databases     []pgv1.PostgresDatabase
}

// BuildClusterReport arranges the inputs into a report.
func BuildClusterReport(in ClusterInputs) ClusterReport {
	c := in.Cluster
	r := ClusterReport{
		Namespace:  c.Namespace,
		Name:       c.Name,
		Class:      c.Spec.Class,
		Phase:      string(c.Status.Phase),
		Current:    c.Status.ObservedGeneration == c.Generation,
		Conditions: ordered(c.Status.Conditions, ClusterChain),
		Instances:  instances(in),
		Pooler:     pooler(c, in.Poolers),
		Backup:     backup(c.Status.BackupStatus, c.Status.Conditions),
		Databases:  databases(c.Name, in.Databases),
	}
	return r
}

func instances(in ClusterInputs) InstancesReport {
	r := InstancesReport{Desired: int(in.Cluster.Status.Instances), Ready: int(in.Cluster.Status.ReadyInstances),
		Primary: in.Cluster.Status.CurrentPrimary}
	if p := in.Cluster.Status.Postgres; p != nil {
		r.ReplicationLagBytes, r.SampledAt, r.LastReplayedAt = p.ReplicationLagBytes, p.SampledAt.DeepCopy(), p.LastReplayedAt.DeepCopy()
	}
	if in.CNPG == nil {
		return r
	}
	st := in.CNPG.Status
	r.CNPGCluster, r.CNPGPhase, r.CNPGReason = in.CNPG.Name, st.Phase, st.PhaseReason
	// CNPG's own counts are fresher than what setpoint last copied.
	r.Desired, r.Ready, r.Primary, r.TargetPrimary = st.Instances, st.ReadyInstances, st.CurrentPrimary, st.TargetPrimary
	if r.TargetPrimary == r.Primary {
		r.TargetPrimary = ""
	}
	for _, n := range in.InstanceNames {
		if n != st.CurrentPrimary {
			r.Replicas = append(r.Replicas, n)
		}
	}
	sort.Strings(r.Replicas)
	return r
}

func pooler(c *pgv1.PostgresCluster, poolers []cnpgv1.Pooler) PoolerReport {
	ps := c.Status.ConnectionPoolerStatus
	if ps == nil || !ps.Enabled {
		return PoolerReport{}
	}
	object := func(name, phase string) *PoolerObject {
		o := &PoolerObject{Name: name, Phase: phase}
		for _, p := range poolers {
			if p.Name == name {
				o.Instances = p.Status.Instances
			}
		}
		return o
	}
	return PoolerReport{Enabled: true,
		ReadWrite: object(naming.PoolerRW(c.Name), ps.ReadWrite),
		ReadOnly:  object(naming.PoolerRO(c.Name), ps.ReadOnly)}
}

func backup(b *pgv1.BackupStatus, conds []metav1.Condition) BackupReport {
	if b == nil {
		return BackupReport{}
	}
	r := BackupReport{ObjectStore: b.ObjectStore, ServerName: b.ServerName, ArchivePath: b.ArchivePath,
		ScheduledBackups: b.ScheduledBackups, LastScheduleTime: b.LastScheduleTime,
		LastBackup: b.LastSuccessfulBackupTime, LastRequest: b.LastRequest,
		LastFailedBackup: b.LastFailedBackupTime, Health: backupHealth(conds)}
	if b.FirstRecoverabilityPoint != nil {
		r.RecoveryWindow = &RecoveryWindow{From: *b.FirstRecoverabilityPoint}
	}
	return r
}

func databases(cluster string, dbs []pgv1.PostgresDatabase) []DatabaseReport {
	out := []DatabaseReport{}
	for _, d := range dbs {
		if d.Spec.ClusterRef.Name != cluster {
			continue
		}
		r := DatabaseReport{Name: d.Name, Phase: string(d.Status.Phase),
			Current: d.Status.ObservedGeneration == d.Generation, Conditions: ordered(d.Status.Conditions, DatabaseChain)}
		for _, s := range d.Spec.Databases {
			r.Databases = append(r.Databases, s.Name)
		}
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// age renders how long ago t was, in the largest whole unit, as kubectl
// shows ages.
func age(now time.Time, t metav1.Time) string {
	d := now.Sub(t.Time)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh", int(d.Hours()))
	default:
		return fmt.Sprintf("%dd", int(d.Hours()/24))
	}
}
