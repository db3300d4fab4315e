package contract_test

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Inputs the API server used to accept and that then broke the cluster:
// each is refused with its own message, for PostgresCluster and (for the
// shared settings) PostgresClusterClass alike.

const (
	msgFixedParam = ": CloudNativePG manages this parameter, it cannot be set in postgresqlConfig"
	msgWalLevel   = "wal_level must be replica or logical: CloudNativePG archives WAL and streams to replicas"
	msgParamName  = "postgresqlConfig keys must be Postgres parameter names (letters, digits, _ and $, at most one dot)"
	msgHBABreak   = "pgHBA lines must not contain line breaks: give one entry per line"
	msgHBAShape   = `must be "local DATABASE USER METHOD", "host|hostssl|hostnossl|hostgssenc|hostnogssenc DATABASE USER ADDRESS METHOD" (options may follow) or "include|include_if_exists|include_dir FILE"`
	msgSize       = "spec.storage.size: Invalid value: storage.size must be greater than zero"
	msgCronTail   = ", *, a range a-b, a step /n, or a comma-separated list of these"
	msgDNSName    = "metadata.name must be a DNS-1035 label (lowercase letters, digits and '-', starting with a letter, no dots): CloudNativePG names Services after the cluster"
	msgNameLength = "metadata.name must be at most 50 characters: CloudNativePG refuses longer cluster names"
	msgNameSuffix = "metadata.name must not end in -pooler, -pooler-rw, -pooler-ro or -primary: cluster X's pooler Service X-pooler-rw and primary disruption budget X-primary would collide with the objects of a cluster of that name"
)

// settingsCases are refusals of ClusterSettings fields, shared by both kinds.
var settingsCases = []struct {
	name   string
	mutate func(*pgv1.ClusterSettings)
	want   string
}{
	{"fixed parameter in another case", func(s *pgv1.ClusterSettings) { s.PostgreSQLConfig = map[string]string{"Listen_Addresses": "*"} },
		`spec.postgresqlConfig: Invalid value: Listen_Addresses` + msgFixedParam},
	{"fixed parameter beyond the first thirteen", func(s *pgv1.ClusterSettings) {
		s.PostgreSQLConfig = map[string]string{"hot_standby": "off", "work_mem": "4MB"}
	}, `spec.postgresqlConfig: Invalid value: hot_standby` + msgFixedParam},
	{"configuration-file directive", func(s *pgv1.ClusterSettings) { s.PostgreSQLConfig = map[string]string{"include_dir": "/etc"} },
		`include_dir` + msgFixedParam},
	{"wal_level minimal", func(s *pgv1.ClusterSettings) { s.PostgreSQLConfig = map[string]string{"WAL_LEVEL": "minimal"} },
		`spec.postgresqlConfig: Invalid value: ` + msgWalLevel},
	{"not a parameter name", func(s *pgv1.ClusterSettings) { s.PostgreSQLConfig = map[string]string{"work mem": "4MB"} },
		`spec.postgresqlConfig: Invalid value: ` + msgParamName},
	{"one parameter twice", func(s *pgv1.ClusterSettings) {
		s.PostgreSQLConfig = map[string]string{"work_mem": "4MB", "Work_Mem": "8MB"}
	},
		`spec.postgresqlConfig: Invalid value: postgresqlConfig keys must differ in more than case: Postgres reads work_mem and WORK_MEM as one parameter`},
	{"pg_hba line break", func(s *pgv1.ClusterSettings) {
		s.PgHBA = []string{"host all all 10.0.0.0/8 scram-sha-256\nhost all all 0.0.0.0/0 trust"}
	}, `spec.pgHBA: Invalid value: ` + msgHBABreak},
	{"pg_hba unknown type", func(s *pgv1.ClusterSettings) { s.PgHBA = []string{"hots all all 10.0.0.0/8 scram-sha-256"} },
		`spec.pgHBA: Invalid value: pgHBA line "hots all all 10.0.0.0/8 scram-sha-256" ` + msgHBAShape},
	{"pg_hba host without address", func(s *pgv1.ClusterSettings) {
		s.PgHBA = []string{"local all all peer", "host all all scram-sha-256"}
	}, `pgHBA line "host all all scram-sha-256" ` + msgHBAShape},
	{"zero storage", func(s *pgv1.ClusterSettings) { s.Storage = &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("0"))} }, msgSize},
	{"negative storage", func(s *pgv1.ClusterSettings) { s.Storage = &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("-1Gi"))} }, msgSize},
	{"minute out of range", func(s *pgv1.ClusterSettings) { s.Backup = &pgv1.BackupSpec{Schedule: "99 99 * * *"} },
		`spec.backup.schedule: Invalid value: "99 99 * * *": schedule minute must be 0-59` + msgCronTail},
	{"hour out of range", func(s *pgv1.ClusterSettings) { s.Backup = &pgv1.BackupSpec{Schedule: "0 24 * * *"} },
		"schedule hour must be 0-23" + msgCronTail},
	{"day-of-month zero", func(s *pgv1.ClusterSettings) { s.Backup = &pgv1.BackupSpec{Schedule: "0 2 0 * *"} },
		"schedule day-of-month must be 1-31" + msgCronTail},
	{"month thirteen", func(s *pgv1.ClusterSettings) { s.Backup = &pgv1.BackupSpec{Schedule: "0 2 1 13 *"} },
		"schedule month must be 1-12 or jan-dec" + msgCronTail},
	{"day-of-week seven, which CNPG's parser refuses", func(s *pgv1.ClusterSettings) { s.Backup = &pgv1.BackupSpec{Schedule: "0 2 * * 7"} },
		"schedule day-of-week must be 0-6 or sun-sat" + msgCronTail},
	{"step zero", func(s *pgv1.ClusterSettings) { s.Backup = &pgv1.BackupSpec{Schedule: "*/0 2 * * *"} },
		"schedule minute must be 0-59" + msgCronTail},
	{"image catalog and image name", func(s *pgv1.ClusterSettings) {
		s.ImageName = "ghcr.io/cloudnative-pg/postgresql:16.4"
		s.ImageCatalog = &pgv1.ImageCatalogRef{Kind: pgv1.ImageCatalogKindCluster, Name: "postgresql"}
	}, `spec: Invalid value: imageName and imageCatalog both name the image: set one (imageCatalog pins a fleet's images, imageName is for a one-off image)`},
	{"image catalog of another kind", func(s *pgv1.ClusterSettings) {
		s.ImageCatalog = &pgv1.ImageCatalogRef{Kind: "ConfigMap", Name: "postgresql"}
	}, `spec.imageCatalog.kind: Invalid value: imageCatalog.kind must be ClusterImageCatalog or ImageCatalog: CloudNativePG resolves images from these two kinds only`},
	{"standbys for asynchronous replication", func(s *pgv1.ClusterSettings) {
		s.Durability = &pgv1.DurabilitySpec{Mode: pgv1.DurabilityAsynchronous, Standbys: ptr.To[int32](1)}
	}, `spec.durability: Invalid value: durability.standbys and durability.dataDurability apply to mode Synchronous only`},
	{"data durability without a mode", func(s *pgv1.ClusterSettings) {
		s.Durability = &pgv1.DurabilitySpec{DataDurability: pgv1.DataDurabilityPreferred}
	}, `durability.standbys and durability.dataDurability apply to mode Synchronous only`},
	{"unknown data durability", func(s *pgv1.ClusterSettings) {
		s.Durability = &pgv1.DurabilitySpec{Mode: pgv1.DurabilitySynchronous, DataDurability: "Sometimes"}
	}, `spec.durability.dataDurability: Unsupported value: "Sometimes": supported values: "Required", "Preferred"`},
	{"as many standbys as instances", func(s *pgv1.ClusterSettings) {
		s.Instances = ptr.To[int32](2)
		s.Durability = &pgv1.DurabilitySpec{Mode: pgv1.DurabilitySynchronous, Standbys: ptr.To[int32](2)}
	}, `spec.durability: Invalid value: durability Synchronous needs more instances than durability.standbys (default 1): the primary is not its own standby`},
	{"one instance, synchronous", func(s *pgv1.ClusterSettings) {
		s.Instances = ptr.To[int32](1)
		s.Durability = &pgv1.DurabilitySpec{Mode: pgv1.DurabilitySynchronous}
	}, `durability Synchronous needs more instances than durability.standbys (default 1)`},
}

func TestClusterSettingsInputRules(t *testing.T) {
	ns := newNamespace(t)
	for _, tc := range settingsCases {
		t.Run(tc.name, func(t *testing.T) {
			c := validCluster(ns)
			tc.mutate(&c.Spec.ClusterSettings)
			_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
			expectRefused(t, err, tc.want)
		})
	}
}

func TestClassSettingsInputRules(t *testing.T) {
	for i, tc := range settingsCases {
		t.Run(tc.name, func(t *testing.T) {
			class := &pgv1.PostgresClusterClass{ObjectMeta: metav1.ObjectMeta{Name: "contract-inputs-" + string(rune('a'+i))}}
			tc.mutate(&class.Spec.ClusterSettings)
			_, err := pg.PostgresV1alpha1().PostgresClusterClasses().Create(t.Context(), class, metav1.CreateOptions{})
			if err == nil {
				_ = pg.PostgresV1alpha1().PostgresClusterClasses().Delete(context.WithoutCancel(t.Context()), class.Name, metav1.DeleteOptions{})
			}
			expectRefused(t, err, tc.want)
		})
	}
}

func TestClusterSettingsAcceptedInputs(t *testing.T) {
	ns := newNamespace(t)
	c := validCluster(ns)
	c.Name = "s" + strings.Repeat("x", 49) // 50 characters
	c.Spec.PostgreSQLConfig = map[string]string{"TimeZone": "UTC", "DateStyle": "ISO", "wal_level": "logical", "pg_stat_statements.max": "1000"}
	c.Spec.PgHBA = []string{
		"local all all peer",
		"hostssl app app_rw 10.0.0.0/8 scram-sha-256",
		"host all all 10.0.0.0 255.0.0.0 scram-sha-256 # office",
		"hostnogssenc all all ::1/128 cert clientcert=verify-full",
		"include_if_exists extra_hba.conf",
	}
	c.Spec.Backup = &pgv1.BackupSpec{Schedule: "*/15 2-4,22 1,15 jan-jun MON-fri"}
	c.Spec.ImageCatalog = &pgv1.ImageCatalogRef{Kind: pgv1.ImageCatalogKindNamespaced, Name: "postgresql"}
	c.Spec.Instances = ptr.To[int32](3)
	c.Spec.Durability = &pgv1.DurabilitySpec{Mode: pgv1.DurabilitySynchronous, Standbys: ptr.To[int32](2), DataDurability: pgv1.DataDurabilityPreferred}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatalf("refused valid input: %v", err)
	}
}

func TestClusterNameRules(t *testing.T) {
	ns := newNamespace(t)
	cases := []struct{ name, want string }{
		{"shop.eu", msgDNSName},
		{"s" + strings.Repeat("x", 50), msgNameLength},
		{"shop-pooler", msgNameSuffix},
		{"shop-pooler-rw", msgNameSuffix},
		{"shop-primary", msgNameSuffix},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c := validCluster(ns)
			c.Name = tc.name
			_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
			expectRefused(t, err, tc.want)
		})
	}
	t.Run("a pooler-like name in the middle is fine", func(t *testing.T) {
		c := validCluster(ns)
		c.Name = "shop-pooler-two"
		if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
			t.Fatalf("refused: %v", err)
		}
	})
}

func TestDatabaseNameLength(t *testing.T) {
	ns := newNamespace(t)
	d := validDatabase(ns)
	d.Name = "a" + strings.Repeat("b", 63)
	_, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{})
	expectRefused(t, err, "metadata.name must be at most 63 characters: it is a label value on every child")
}
