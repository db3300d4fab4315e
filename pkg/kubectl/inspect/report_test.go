package inspect

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func reportInputs() ClusterInputs {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	pc := cluster(pgv1.PhaseReady,
		cond("Ready", "True", "AllComponentsReady", ""),
		cond("PostgresUnreachable", "False", "PostgresReachable", ""),
		cond("ProvisionerReady", "True", "ClusterHealthy", ""),
		cond("SecretReady", "True", "SecretReady", ""))
	pc.Status.Postgres = &pgv1.PostgresHealth{SampledAt: metav1.NewTime(now.Add(-30 * time.Second)), ReplicationLagBytes: ptr(int64(4096))}
	pc.Status.ConnectionPoolerStatus = &pgv1.ConnectionPoolerStatus{Enabled: true, ReadWrite: "active", ReadOnly: "active"}
	pc.Status.BackupStatus = &pgv1.BackupStatus{ObjectStore: "shop-backup", ServerName: "shop",
		FirstRecoverabilityPoint: &metav1.Time{Time: now.Add(-48 * time.Hour)},
		LastSuccessfulBackupTime: &metav1.Time{Time: now.Add(-2 * time.Hour)},
		LastRequest:              &pgv1.BackupRequestStatus{ID: "r1", Backup: "shop-backup-0123456789"}}
	other := database(pgv1.PhaseReady)
	other.Name, other.Spec.ClusterRef.Name = "elsewhere", "other"
	return ClusterInputs{
		Cluster: pc,
		CNPG: &cnpgv1.Cluster{ObjectMeta: meta("shop", 1), Status: cnpgv1.ClusterStatus{
			Phase: "Cluster in healthy state", Instances: 3, ReadyInstances: 3, CurrentPrimary: "shop-2", TargetPrimary: "shop-2"}},
		InstanceNames: []string{"shop-3", "shop-1", "shop-2"},
		Poolers:       []cnpgv1.Pooler{{ObjectMeta: meta("shop-pooler-rw", 1), Status: cnpgv1.PoolerStatus{Instances: 2}}},
		Databases: []pgv1.PostgresDatabase{*database(pgv1.PhaseProvisioning,
			cond("Ready", "False", "RolesPending", "RolesReady: 3 role(s) not yet applied"),
			cond("RolesReady", "False", "RolesPending", "3 role(s) not yet applied"),
			cond("SecretsReady", "True", "SecretsReady", "")), *other},
	}
}

// The report puts conditions in pipeline order with Ready after the
// steps, counts the primary apart from the replicas, and lists only the
// cluster's own databases.
func TestBuildClusterReport(t *testing.T) {
	r := BuildClusterReport(reportInputs())
	var types []string
	for _, c := range r.Conditions {
		types = append(types, c.Type)
	}
	if got, want := strings.Join(types, ","), "SecretReady,ProvisionerReady,Ready,PostgresUnreachable"; got != want {
		t.Errorf("condition order %s, want %s", got, want)
	}
	in := r.Instances
	if in.Primary != "shop-2" || strings.Join(in.Replicas, ",") != "shop-1,shop-3" || in.TargetPrimary != "" || in.Ready != 3 {
		t.Errorf("instances %+v", in)
	}
	if in.ReplicationLagBytes == nil || *in.ReplicationLagBytes != 4096 {
		t.Errorf("lag %v, want 4096", in.ReplicationLagBytes)
	}
	if !r.Pooler.Enabled || r.Pooler.ReadWrite.Instances != 2 || r.Pooler.ReadOnly.Name != "shop-pooler-ro" || r.Pooler.ReadOnly.Phase != "active" {
		t.Errorf("pooler %+v", r.Pooler)
	}
	if r.Backup.RecoveryWindow == nil || r.Backup.LastBackup == nil {
		t.Errorf("backup %+v", r.Backup)
	}
	if len(r.Databases) != 1 || r.Databases[0].Name != "shop-app" || r.Databases[0].Conditions[0].Type != "SecretsReady" {
		t.Errorf("databases %+v", r.Databases)
	}
}

// -o json has a fixed shape scripts can rely on.
func TestClusterReportJSONKeys(t *testing.T) {
	b, err := json.Marshal(BuildClusterReport(reportInputs()))
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"namespace", "name", "class", "phase", "current", "conditions", "instances", "pooler", "backup", "databases"} {
		if _, ok := m[k]; !ok {
			t.Errorf("json lacks %q: %s", k, b)
		}
	}
	if p := m["instances"].(map[string]any)["primary"]; p != "shop-2" {
		t.Errorf("instances.primary %v", p)
	}
}

func TestWriteClusterReport(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	var out strings.Builder
	if err := WriteClusterReport(&out, BuildClusterReport(reportInputs()), now); err != nil {
		t.Fatal(err)
	}
	// Columns are aligned by a tabwriter: compare each line's words,
	// whatever the spaces between them.
	var lines []string
	for _, l := range strings.Split(out.String(), "\n") {
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	text := strings.Join(lines, "\n")
	for _, want := range []string{
		"PostgresCluster default/shop (class standard): Ready\n",
		"\nprimary shop-2\n",
		"\nreplicas shop-1, shop-3\n",
		"\nreplication lag 4096 bytes (sampled 30s ago)\n",
		"\nPooler: shop-pooler-rw: active (2 PgBouncer instance(s) created)\n",
		"\nlast backup 2026-11-30T10:00:00Z (2h ago)\n",
		"\nrecovery window 2026-11-28T12:00:00Z → now\n",
		"\nlast request r1 → shop-backup-0123456789\n",
		"\nPostgresDatabase shop-app (order_items): Provisioning\n",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report lacks %q:\n%s", want, text)
		}
	}
	// A False alarm condition is good news, a False step is not.
	if !strings.Contains(text, "\n✓ PostgresUnreachable PostgresReachable") || !strings.Contains(text, "\n✗ RolesReady RolesPending") {
		t.Errorf("marks wrong:\n%s", text)
	}
}

// A replica cluster's report says how old the last replayed commit was
// when the collector sampled it, and carries it in JSON.
func TestClusterReportOfAReplica(t *testing.T) {
	t.Parallel()
	in := reportInputs()
	sampled := in.Cluster.Status.Postgres.SampledAt
	in.Cluster.Status.Postgres = &pgv1.PostgresHealth{SampledAt: sampled, LastReplayedAt: &metav1.Time{Time: sampled.Add(-2 * time.Minute)}}
	r := BuildClusterReport(in)
	if r.Instances.LastReplayedAt == nil || !r.Instances.LastReplayedAt.Equal(in.Cluster.Status.Postgres.LastReplayedAt) {
		t.Errorf("lastReplayedAt %v, want %v", r.Instances.LastReplayedAt, in.Cluster.Status.Postgres.LastReplayedAt)
	}
	var out strings.Builder
	if err := WriteClusterReport(&out, r, sampled.Add(30*time.Second)); err != nil {
		t.Fatal(err)
	}
	if want := "last replayed a commit of 2m ago on the source (sampled 30s ago)"; !strings.Contains(strings.Join(strings.Fields(out.String()), " "), want) {
		t.Errorf("report lacks %q:\n%s", want, out.String())
	}
}
