package cluster

import (
	"errors"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func class() *pgv1.PostgresClusterClass {
	return &pgv1.PostgresClusterClass{
		ObjectMeta: metav1.ObjectMeta{Name: "standard"},
		Spec: pgv1.PostgresClusterClassSpec{ClusterSettings: pgv1.ClusterSettings{
			Instances:        ptr.To[int32](3),
			PostgresVersion:  ptr.To[int32](16),
			Storage:          &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("10Gi"))},
			PostgreSQLConfig: map[string]string{"max_connections": "200", "work_mem": "4MB"},
			PgHBA:            []string{"host all all 10.0.0.0/8 scram-sha-256"},
			ConnectionPooler: &pgv1.ConnectionPoolerSpec{Enabled: ptr.To(true), PoolMode: pgv1.PoolModeTransaction},
		},
		}}
}

func cluster(s pgv1.ClusterSettings) *pgv1.PostgresCluster {
	return &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", UID: "uid-shop"},
		Spec:       pgv1.PostgresClusterSpec{Class: "standard", ClusterSettings: s},
	}
}

func TestClusterOverridesClassFieldByField(t *testing.T) {
	t.Parallel()
	d, err := resolve(cluster(pgv1.ClusterSettings{
		Instances:        ptr.To[int32](2),
		PostgreSQLConfig: map[string]string{"work_mem": "16MB"},
		PgHBA:            []string{"host all all 192.168.0.0/16 scram-sha-256"},
		ConnectionPooler: &pgv1.ConnectionPoolerSpec{Enabled: ptr.To(false)},
	}), class())
	if err != nil {
		t.Fatal(err)
	}
	if d.Instances != 2 || d.PostgresVersion != 16 || d.StorageSize.String() != "10Gi" {
		t.Errorf("instances/version/storage = %d/%d/%s", d.Instances, d.PostgresVersion, d.StorageSize.String())
	}
	if got := d.Settings.PostgreSQLConfig; got["max_connections"] != "200" || got["work_mem"] != "16MB" {
		t.Errorf("parameters = %v", got)
	}
	if len(d.Settings.PgHBA) != 2 {
		t.Errorf("pg_hba = %v, want class line then cluster line", d.Settings.PgHBA)
	}
	if d.PoolerEnabled || d.PoolMode != pgv1.PoolModeTransaction {
		t.Errorf("pooler enabled=%v mode=%s", d.PoolerEnabled, d.PoolMode)
	}
	if d.ImageName != "ghcr.io/cloudnative-pg/postgresql:16" {
		t.Errorf("image = %s", d.ImageName)
	}
	if c := class(); c.Spec.PostgreSQLConfig["work_mem"] != "4MB" {
		t.Error("merge mutated the class")
	}
}

func TestClusterParameterReplacesClassParameterInAnyCase(t *testing.T) {
	t.Parallel()
	d, err := resolve(cluster(pgv1.ClusterSettings{PostgreSQLConfig: map[string]string{"WORK_MEM": "16MB"}}), class())
	if err != nil {
		t.Fatal(err)
	}
	if got := d.Settings.PostgreSQLConfig; len(got) != 2 || got["WORK_MEM"] != "16MB" || got["max_connections"] != "200" {
		t.Errorf("parameters = %v, want the cluster's WORK_MEM instead of the class's work_mem", got)
	}
}

func TestResolveRejectsInvalidCombinations(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name   string
		s      pgv1.ClusterSettings
		class  *pgv1.PostgresClusterClass
		reason string
	}{
		{"missing class", pgv1.ClusterSettings{}, nil, "ClassNotFound"},
		{"schedule without target", pgv1.ClusterSettings{Backup: &pgv1.BackupSpec{Schedule: "0 2 * * *"}}, class(), "BackupTargetMissing"},
		{"object store without credentials", pgv1.ClusterSettings{Backup: &pgv1.BackupSpec{
			ObjectStore: &pgv1.ObjectStoreSpec{DestinationPath: "s3://b"}}}, class(), "BackupCredentialsMissing"},
		{"fixed parameter", pgv1.ClusterSettings{PostgreSQLConfig: map[string]string{"port": "6543"}}, class(), "ParameterNotAllowed"},
		{"fixed parameter in another case", pgv1.ClusterSettings{PostgreSQLConfig: map[string]string{"Listen_Addresses": "*"}}, class(), "ParameterNotAllowed"},
		{"fixed parameter beyond the first thirteen", pgv1.ClusterSettings{PostgreSQLConfig: map[string]string{"hot_standby": "off"}}, class(), "ParameterNotAllowed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := resolve(cluster(tc.s), tc.class)
			var se *specError
			if !errors.As(err, &se) || se.reason != tc.reason {
				t.Fatalf("err = %v, want reason %s", err, tc.reason)
			}
		})
	}
}

// A cluster's monitoring switches override its class's one by one: the
// cluster turning the PodMonitor off keeps the class's metrics Service.
func TestMonitoringMergesSwitchBySwitch(t *testing.T) {
	t.Parallel()
	class := pgv1.ClusterSettings{Monitoring: &pgv1.MonitoringSpec{Enabled: ptr.To(true), Service: ptr.To(true)}}
	m := mergeSettings(class, pgv1.ClusterSettings{Monitoring: &pgv1.MonitoringSpec{Enabled: ptr.To(false)}})
	if got := m.Monitoring; got == nil || *got.Enabled || !*got.Service {
		t.Fatalf("merged monitoring = %+v, want enabled false (cluster), service true (class)", got)
	}
	if !*class.Monitoring.Enabled {
		t.Fatal("the merge changed the class's settings")
	}
	m = mergeSettings(pgv1.ClusterSettings{}, pgv1.ClusterSettings{Monitoring: &pgv1.MonitoringSpec{Service: ptr.To(true)}})
	if got := m.Monitoring; got == nil || got.Enabled != nil || !*got.Service {
		t.Fatalf("merged monitoring without class = %+v", got)
	}
}
