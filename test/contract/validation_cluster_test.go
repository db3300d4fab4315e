package contract_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

func validCluster(ns string) *pgv1.PostgresCluster {
	return &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: ns},
		Spec: pgv1.PostgresClusterSpec{
			Class: "standard",
			ClusterSettings: pgv1.ClusterSettings{
				Instances:       ptr.To[int32](2),
				PostgresVersion: ptr.To[int32](16),
				Storage:         &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("10Gi"))},
			},
		},
	}
}

// expectRefused asserts that err is the API server refusing the object
// with exactly want somewhere in its message.
func expectRefused(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted; want refusal %q", want)
	}
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("refused with\n  %v\nwant message containing\n  %s", err, want)
	}
}

func TestClusterCreateRules(t *testing.T) {
	ns := newNamespace(t)
	cases := []struct {
		name   string
		mutate func(*pgv1.PostgresCluster)
		want   string
	}{
		{"no instances", func(c *pgv1.PostgresCluster) { c.Spec.Instances = ptr.To[int32](0) },
			"spec.instances: Invalid value: 0: spec.instances in body should be greater than or equal to 1"},
		{"too many instances", func(c *pgv1.PostgresCluster) { c.Spec.Instances = ptr.To[int32](11) },
			"spec.instances: Invalid value: 11: spec.instances in body should be less than or equal to 10"},
		{"unknown anti-affinity", func(c *pgv1.PostgresCluster) { c.Spec.Placement = &pgv1.PlacementSpec{AntiAffinity: "Sometimes"} },
			`spec.placement.antiAffinity: Unsupported value: "Sometimes": supported values: "Preferred", "Required", "Disabled"`},
		{"a topology key for no anti-affinity", func(c *pgv1.PostgresCluster) {
			c.Spec.Placement = &pgv1.PlacementSpec{AntiAffinity: pgv1.AntiAffinityDisabled, TopologyKey: "topology.kubernetes.io/zone"}
		}, "spec.placement.topologyKey: Invalid value: placement.topologyKey is the anti-affinity's domain: it means nothing with antiAffinity Disabled"},
		{"tenants with neither list nor selector", func(c *pgv1.PostgresCluster) { c.Spec.Tenants = &pgv1.TenantsSpec{} },
			"spec.tenants: Invalid value: tenants needs namespaces, namespaceSelector or both"},
		{"a tenant that is no namespace name", func(c *pgv1.PostgresCluster) { c.Spec.Tenants = &pgv1.TenantsSpec{Namespaces: []string{"Team_A"}} },
			`spec.tenants.namespaces[0]: Invalid value: "Team_A": spec.tenants.namespaces[0] in body should match '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$'`},
		{"empty class", func(c *pgv1.PostgresCluster) { c.Spec.Class = "" },
			"spec.class: Invalid value: \"\": spec.class in body should be at least 1 chars long"},
		{"unknown deletion policy", func(c *pgv1.PostgresCluster) { c.Spec.ClusterDeletionPolicy = "Sometimes" },
			`spec.clusterDeletionPolicy: Unsupported value: "Sometimes": supported values: "Retain", "Delete"`},
		{"six-field cron", func(c *pgv1.PostgresCluster) { c.Spec.Backup = &pgv1.BackupSpec{Schedule: "0 0 2 * * *"} },
			`spec.backup.schedule: Invalid value: "0 0 2 * * *": schedule must be a five-field cron expression (minute hour day-of-month month day-of-week)`},
		{"bad retention", func(c *pgv1.PostgresCluster) {
			c.Spec.Backup = &pgv1.BackupSpec{ObjectStore: &pgv1.ObjectStoreSpec{DestinationPath: "s3://b", RetentionPolicy: "30 days"}}
		}, `spec.backup.objectStore.retentionPolicy: Invalid value: "30 days": spec.backup.objectStore.retentionPolicy in body should match '^[1-9][0-9]*[dwm]$'`},
		{"bad pool mode", func(c *pgv1.PostgresCluster) {
			c.Spec.ConnectionPooler = &pgv1.ConnectionPoolerSpec{PoolMode: "statement"}
		}, `spec.connectionPooler.poolMode: Unsupported value: "statement": supported values: "session", "transaction"`},
		{"old postgres", func(c *pgv1.PostgresCluster) { c.Spec.PostgresVersion = ptr.To[int32](14) },
			"spec.postgresVersion: Invalid value: 14: spec.postgresVersion in body should be greater than or equal to 15"},
		{"databases' statement timeout over a day", func(c *pgv1.PostgresCluster) {
			c.Spec.DatabaseDefaults = &pgv1.DatabaseDefaults{StatementTimeout: &metav1.Duration{Duration: 48 * time.Hour}}
		}, "spec.databaseDefaults.statementTimeout: Invalid value: \"48h0m0s\": statementTimeout must be between 0s (no timeout) and 24h"},
		{"negative databases' statement timeout", func(c *pgv1.PostgresCluster) {
			c.Spec.DatabaseDefaults = &pgv1.DatabaseDefaults{StatementTimeout: &metav1.Duration{Duration: -time.Minute}}
		}, "statementTimeout must be between 0s (no timeout) and 24h"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := validCluster(ns)
			tc.mutate(c)
			_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
			expectRefused(t, err, tc.want)
		})
	}
}

func TestClusterDefaultsAndFiveFieldCron(t *testing.T) {
	ns := newNamespace(t)
	c := validCluster(ns)
	c.Spec.Backup = &pgv1.BackupSpec{Schedule: "0 2 * * *"}
	got, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create valid cluster: %v", err)
	}
	if got.Spec.ClusterDeletionPolicy != pgv1.DeletionPolicyRetain {
		t.Errorf("clusterDeletionPolicy defaulted to %q, want Retain", got.Spec.ClusterDeletionPolicy)
	}
}

func TestClusterUpdateRules(t *testing.T) {
	ns := newNamespace(t)
	cases := []struct {
		name   string
		mutate func(*pgv1.PostgresCluster)
		want   string
	}{
		{"class changed", func(c *pgv1.PostgresCluster) { c.Spec.Class = "premium" },
			`spec.class: Invalid value: "premium": class is immutable`},
		{"major version down", func(c *pgv1.PostgresCluster) { c.Spec.PostgresVersion = ptr.To[int32](15) },
			"spec.postgresVersion: Invalid value: postgresVersion cannot go down or be removed once set"},
		{"major version removed", func(c *pgv1.PostgresCluster) { c.Spec.PostgresVersion = nil },
			"spec.postgresVersion: Invalid value: postgresVersion cannot go down or be removed once set"},
		{"storage shrunk", func(c *pgv1.PostgresCluster) { c.Spec.Storage.Size = ptr.To(resource.MustParse("9Gi")) },
			"spec.storage.size: Invalid value: storage.size cannot shrink or be removed once set"},
		{"storage shrunk across units", func(c *pgv1.PostgresCluster) { c.Spec.Storage.Size = ptr.To(resource.MustParse("10000Mi")) },
			"spec.storage.size: Invalid value: storage.size cannot shrink or be removed once set"},
		{"storage removed", func(c *pgv1.PostgresCluster) { c.Spec.Storage = nil },
			"spec.storage.size: Invalid value: storage.size cannot shrink or be removed once set"},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := validCluster(ns)
			c.Name = "shop-" + string(rune('a'+i))
			created, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			tc.mutate(created)
			_, err = pg.PostgresV1alpha1().PostgresClusters(ns).Update(t.Context(), created, metav1.UpdateOptions{})
			expectRefused(t, err, tc.want)
		})
	}

	t.Run("allowed changes", func(t *testing.T) {
		c := validCluster(ns)
		c.Name = "shop-grows"
		created, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("create: %v", err)
		}
		created.Spec.PostgresVersion = ptr.To[int32](17)
		created.Spec.Storage.Size = ptr.To(resource.MustParse("20Gi"))
		created.Spec.Instances = ptr.To[int32](3)
		if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Update(t.Context(), created, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("upgrade, grow and scale refused: %v", err)
		}
	})

	// Down to status.upgrade.from only while the upgrade has not reached
	// pg_upgrade, or after it failed; never below it, never once upgrading.
	for _, tc := range []struct {
		phase   pgv1.UpgradePhase
		to      int32
		allowed bool
	}{
		{pgv1.UpgradePreflight, 16, true}, {pgv1.UpgradeBackingUp, 16, true}, {pgv1.UpgradeFailed, 16, true},
		{pgv1.UpgradePreflight, 15, false}, {pgv1.UpgradeUpgrading, 16, false}, {pgv1.UpgradeSucceeded, 16, false},
	} {
		t.Run(fmt.Sprintf("back to %d during %s", tc.to, tc.phase), func(t *testing.T) {
			c := validCluster(ns)
			c.Name = strings.ToLower(fmt.Sprintf("back-%d-%s", tc.to, tc.phase))
			c.Spec.PostgresVersion = ptr.To[int32](17)
			created, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			created.Status.Upgrade = &pgv1.MajorUpgradeStatus{From: 16, To: 17, Phase: tc.phase,
				StartTime: metav1.Now(), LastTransitionTime: metav1.Now()}
			if created, err = pg.PostgresV1alpha1().PostgresClusters(ns).UpdateStatus(t.Context(), created, metav1.UpdateOptions{}); err != nil {
				t.Fatalf("status: %v", err)
			}
			created.Spec.PostgresVersion = ptr.To(tc.to)
			_, err = pg.PostgresV1alpha1().PostgresClusters(ns).Update(t.Context(), created, metav1.UpdateOptions{})
			if tc.allowed && err != nil {
				t.Fatalf("refused: %v", err)
			}
			if !tc.allowed {
				expectRefused(t, err, "spec.postgresVersion: Invalid value: postgresVersion cannot go down or be removed once set")
			}
		})
	}
}

func TestClassIsClusterScopedAndValidated(t *testing.T) {
	class := &pgv1.PostgresClusterClass{
		ObjectMeta: metav1.ObjectMeta{Name: "contract-bad-class"},
		Spec: pgv1.PostgresClusterClassSpec{ClusterSettings: pgv1.ClusterSettings{
			Instances: ptr.To[int32](20),
		}},
	}
	_, err := pg.PostgresV1alpha1().PostgresClusterClasses().Create(t.Context(), class, metav1.CreateOptions{})
	expectRefused(t, err, "spec.instances: Invalid value: 20: spec.instances in body should be less than or equal to 10")

	class.Name, class.Spec.Instances = "contract-good-class", ptr.To[int32](3)
	got, err := pg.PostgresV1alpha1().PostgresClusterClasses().Create(t.Context(), class, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create class: %v", err)
	}
	if got.Namespace != "" {
		t.Errorf("class has namespace %q, want cluster-scoped", got.Namespace)
	}
	t.Cleanup(func() {
		_ = pg.PostgresV1alpha1().PostgresClusterClasses().Delete(context.WithoutCancel(t.Context()), got.Name, metav1.DeleteOptions{})
	})
}
