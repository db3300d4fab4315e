package contract_test

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"

	barmanac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/barmancloud/v1"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	monitoringac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/monitoring/v1"
)

var (
	clusterGVR     = schema.GroupVersionResource{Group: "postgresql.cnpg.io", Version: "v1", Resource: "clusters"}
	poolerGVR      = schema.GroupVersionResource{Group: "postgresql.cnpg.io", Version: "v1", Resource: "poolers"}
	scheduledGVR   = schema.GroupVersionResource{Group: "postgresql.cnpg.io", Version: "v1", Resource: "scheduledbackups"}
	databaseGVR    = schema.GroupVersionResource{Group: "postgresql.cnpg.io", Version: "v1", Resource: "databases"}
	roleGVR        = schema.GroupVersionResource{Group: "postgresql.cnpg.io", Version: "v1", Resource: "databaseroles"}
	objectStoreGVR = schema.GroupVersionResource{Group: "barmancloud.cnpg.io", Version: "v1", Resource: "objectstores"}
	podMonitorGVR  = schema.GroupVersionResource{Group: "monitoring.coreos.com", Version: "v1", Resource: "podmonitors"}
)

// applyStrict server-side applies body with strict field validation, so a
// field CNPG's schema does not declare is an error instead of being pruned.
func applyStrict(t *testing.T, gvr schema.GroupVersionResource, ns, name string, body []byte) error {
	t.Helper()
	_, err := dyn.Resource(gvr).Namespace(ns).Patch(t.Context(), name, types.ApplyPatchType, body,
		metav1.PatchOptions{FieldManager: "setpoint", Force: new(true), FieldValidation: "Strict"})
	return err
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return b
}

// fullCluster sets every Cluster field setpoint declares.
func fullCluster(ns string) *cnpgac.ClusterApplyConfiguration {
	return cnpgac.Cluster("shop", ns).WithSpec(cnpgac.ClusterSpec().
		WithInstances(3).
		WithImageName("ghcr.io/cloudnative-pg/postgresql:16").
		WithPostgresConfiguration(cnpgac.PostgresConfiguration().
			WithParameters(map[string]string{"max_connections": "200", "work_mem": "16MB"}).
			WithPgHBA("host all all 10.0.0.0/8 scram-sha-256").
			WithSynchronous(cnpgac.SynchronousReplicaConfiguration().WithMethod("any").WithNumber(1).WithDataDurability("required"))).
		WithSuperuserSecret(cnpgac.LocalObjectReference().WithName("shop-superuser")).
		WithEnableSuperuserAccess(true).
		WithStorage(cnpgac.StorageConfiguration().WithSize("10Gi").WithStorageClass("fast")).
		WithResources(corev1ac.ResourceRequirements().
			WithRequests(corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m")}).
			WithLimits(corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("1Gi")})).
		WithManaged(cnpgac.ManagedConfiguration().WithRoles(
			cnpgac.RoleConfiguration().WithName("orders_admin").WithEnsure("present").
				WithComment("owned by default/shop-app").WithLogin(true).WithInherit(true).
				WithConnectionLimit(-1).WithInRoles("pg_read_all_stats").
				WithPasswordSecret(cnpgac.LocalObjectReference().WithName("shop-app-orders-admin")),
			cnpgac.RoleConfiguration().WithName("old_rw").WithEnsure("absent"),
		)).
		WithPlugins(cnpgac.PluginConfiguration().WithName("barman-cloud.cloudnative-pg.io").
			WithEnabled(true).WithIsWALArchiver(true).
			WithParameters(map[string]string{"barmanObjectName": "shop-backup", "serverName": "shop"})).
		// Declared only to find and remove it where an earlier setpoint set
		// it: false, since true draws CNPG's deprecation warning.
		WithMonitoring(cnpgac.MonitoringConfiguration().WithEnablePodMonitor(false)).
		WithBackup(cnpgac.BackupConfiguration().WithVolumeSnapshot(
			cnpgac.VolumeSnapshotConfiguration().WithClassName("csi-snapclass"))).
		// An object store's identity form binds a cloud identity to the
		// ServiceAccount CNPG makes (backup.objectStore.serviceAccountAnnotations).
		WithServiceAccountTemplate(cnpgac.ServiceAccountTemplate().WithMetadata(cnpgac.ServiceAccountMetadata().
			WithAnnotations(map[string]string{"eks.amazonaws.com/role-arn": "arn:aws:iam::111122223333:role/pg"}))))
}

func TestCNPGObjectsApplyStrictly(t *testing.T) {
	ns := newNamespace(t)
	objects := []struct {
		name string
		gvr  schema.GroupVersionResource
		obj  any
	}{
		{"shop", clusterGVR, fullCluster(ns)},
		{"shop-pooler-rw", poolerGVR, cnpgac.Pooler("shop-pooler-rw", ns).WithSpec(cnpgac.PoolerSpec().
			WithCluster(cnpgac.LocalObjectReference().WithName("shop")).WithType("rw").WithInstances(2).
			WithPgBouncer(cnpgac.PgBouncerSpec().WithPoolMode("transaction").
				WithParameters(map[string]string{"max_client_conn": "1000", "default_pool_size": "20"})))},
		{"shop-pooler-ro", poolerGVR, cnpgac.Pooler("shop-pooler-ro", ns).WithSpec(cnpgac.PoolerSpec().
			WithCluster(cnpgac.LocalObjectReference().WithName("shop")).WithType("ro").WithInstances(1).
			WithPgBouncer(cnpgac.PgBouncerSpec().WithPoolMode("session")).
			// A pooler's placement: the template names only the pgbouncer
			// container, which CNPG's schema requires.
			WithTemplate(cnpgac.PoolerTemplate().WithSpec(cnpgac.PoolerPodSpec().
				WithContainers(cnpgac.ContainerName().WithName("pgbouncer")).
				WithAffinity(corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
					RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{TopologyKey: corev1.LabelHostname,
						LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"cnpg.io/poolerName": "shop-pooler-ro"}}}}}}).
				WithNodeSelector(map[string]string{"pool": "edge"}).
				WithTolerations(corev1.Toleration{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "db", Effect: corev1.TaintEffectNoSchedule}).
				WithTopologySpreadConstraints(corev1.TopologySpreadConstraint{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone",
					WhenUnsatisfiable: corev1.ScheduleAnyway}).
				WithPriorityClassName("poolers"))))},
		{"shop-plugin", scheduledGVR, cnpgac.ScheduledBackup("shop-plugin", ns).WithSpec(cnpgac.ScheduledBackupSpec().
			WithSchedule("0 0 2 * * *").WithCluster(cnpgac.LocalObjectReference().WithName("shop")).
			WithMethod("plugin").
			WithPluginConfiguration(cnpgac.BackupPluginConfiguration().WithName("barman-cloud.cloudnative-pg.io").
				WithParameters(map[string]string{"barmanObjectName": "shop-backup"})).
			WithImmediate(true).WithSuspend(false).WithBackupOwnerReference("self").WithTarget("prefer-standby"))},
		{"shop-snapshot", scheduledGVR, cnpgac.ScheduledBackup("shop-snapshot", ns).WithSpec(cnpgac.ScheduledBackupSpec().
			WithSchedule("0 30 3 * * 0").WithCluster(cnpgac.LocalObjectReference().WithName("shop")).
			WithMethod("volumeSnapshot").WithBackupOwnerReference("cluster").WithTarget("primary"))},
		{"shop-app-orders", databaseGVR, cnpgac.Database("shop-app-orders", ns).WithSpec(cnpgac.DatabaseSpec().
			WithCluster(cnpgac.LocalObjectReference().WithName("shop")).WithName("orders").WithOwner("orders_admin").
			WithEnsure("present").WithDatabaseReclaimPolicy("delete").
			WithExtensions(cnpgac.ExtensionSpec().WithName("pg_trgm").WithEnsure("present").WithSchema("public"),
				cnpgac.ExtensionSpec().WithName("hstore").WithEnsure("absent").WithVersion("1.8")))},
		// A role of a database with authentication: certificate.
		{"shop.orders-rw", roleGVR, cnpgac.DatabaseRole("shop.orders-rw", ns).WithSpec(cnpgac.DatabaseRoleSpec().
			WithCluster(cnpgac.LocalObjectReference().WithName("shop")).WithName("orders_rw").WithLogin(true).
			WithComment("managed by setpoint").WithDatabaseRoleReclaimPolicy("delete").
			WithPasswordSecret(cnpgac.LocalObjectReference().WithName("shop-app-orders-rw")).
			WithInRoles("setpoint_cert_auth").
			WithClientCertificate(cnpgac.ClientCertificateConfiguration().WithEnabled(true)))},
		{"shop-backup", objectStoreGVR, barmanac.ObjectStore("shop-backup", ns).WithSpec(barmanac.ObjectStoreSpec().
			WithRetentionPolicy("30d").
			WithConfiguration(barmanac.BarmanObjectStoreConfiguration().
				WithDestinationPath("s3://backups/shop").WithEndpointURL("https://minio:9000").
				WithS3Credentials(barmanac.S3Credentials().
					WithAccessKeyID(barmanac.SecretKeySelector().WithName("creds").WithKey("ACCESS_KEY_ID")).
					WithSecretAccessKey(barmanac.SecretKeySelector().WithName("creds").WithKey("ACCESS_SECRET_KEY")).
					WithRegion(barmanac.SecretKeySelector().WithName("creds").WithKey("REGION"))).
				WithWal(barmanac.WalBackupConfiguration().WithCompression("gzip").WithMaxParallel(4)).
				WithData(barmanac.DataBackupConfiguration().WithCompression("bzip2").WithJobs(2))))},
		{"shop-metrics", podMonitorGVR, monitoringac.PodMonitor("shop-metrics", ns).WithSpec(monitoringac.PodMonitorSpec().
			WithSelector(metav1ac.LabelSelector().WithMatchLabels(map[string]string{"cnpg.io/cluster": "shop", "cnpg.io/podRole": "instance"})).
			WithPodMetricsEndpoints(monitoringac.PodMetricsEndpoint().WithPort("metrics")))},
	}
	for _, o := range objects {
		t.Run(o.gvr.Resource+"/"+o.name, func(t *testing.T) {
			if err := applyStrict(t, o.gvr, ns, o.name, mustJSON(t, o.obj)); err != nil {
				t.Fatalf("CNPG's schema refused our object: %v", err)
			}
		})
	}

	// Read back through our typed subset: JSON names match both ways.
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get cluster: %v", err)
	}
	if got := cl.Spec.Managed.Roles[0].PasswordSecret; got == nil || got.Name != "shop-app-orders-admin" {
		t.Errorf("managed role passwordSecret read back as %+v", got)
	}
	if cl.Spec.PostgresConfiguration.Parameters["max_connections"] != "200" || len(cl.Spec.PostgresConfiguration.PgHBA) != 1 ||
		cl.Spec.PostgresConfiguration.Synchronous == nil || cl.Spec.PostgresConfiguration.Synchronous.DataDurability != "required" {
		t.Errorf("postgresql section read back as %+v", cl.Spec.PostgresConfiguration)
	}
	ro, err := pg.CNPGV1().Poolers(ns).Get(t.Context(), "shop-pooler-ro", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get pooler: %v", err)
	}
	if tpl := ro.Spec.Template; tpl == nil || len(tpl.Spec.Containers) != 1 || tpl.Spec.PriorityClassName != "poolers" ||
		tpl.Spec.Affinity == nil || len(tpl.Spec.Tolerations) != 1 || tpl.Spec.NodeSelector["pool"] != "edge" {
		t.Errorf("pooler template read back as %+v", ro.Spec.Template)
	}
	if sa := cl.Spec.ServiceAccountTemplate; sa == nil || sa.Metadata.Annotations["eks.amazonaws.com/role-arn"] == "" {
		t.Errorf("serviceAccountTemplate read back as %+v", sa)
	}
	pm, err := pg.MonitoringV1().PodMonitors(ns).Get(t.Context(), "shop-metrics", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get pod monitor: %v", err)
	}
	if eps := pm.Spec.PodMetricsEndpoints; len(eps) != 1 || eps[0].Port == nil || *eps[0].Port != "metrics" ||
		pm.Spec.Selector.MatchLabels["cnpg.io/cluster"] != "shop" {
		t.Errorf("pod monitor read back as %+v", pm.Spec)
	}
}

func TestStrictApplyRefusesUnknownFields(t *testing.T) {
	ns := newNamespace(t)
	body := []byte(`{"apiVersion":"postgresql.cnpg.io/v1","kind":"Cluster","metadata":{"name":"typo"},` +
		`"spec":{"instances":1,"enableSuperUserAccess":true}}`)
	err := applyStrict(t, clusterGVR, ns, "typo", body)
	expectRefused(t, err, `.spec.enableSuperUserAccess: field not declared in schema`)

	body = []byte(`{"apiVersion":"postgresql.cnpg.io/v1","kind":"Cluster","metadata":{"name":"number"},` +
		`"spec":{"instances":1,"postgresql":{"parameters":{"max_connections":200}}}}`)
	err = applyStrict(t, clusterGVR, ns, "number", body)
	expectRefused(t, err, "expected string")

	// The PodMonitor CRD is the real schema too, not an open object.
	body = []byte(`{"apiVersion":"monitoring.coreos.com/v1","kind":"PodMonitor","metadata":{"name":"typo"},` +
		`"spec":{"selector":{},"podMetricEndpoints":[{"port":"metrics"}]}}`)
	err = applyStrict(t, podMonitorGVR, ns, "typo", body)
	expectRefused(t, err, `.spec.podMetricEndpoints: field not declared in schema`)
}
