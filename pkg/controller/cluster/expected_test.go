package cluster

import (
	"encoding/json"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	monitoringv1 "github.com/setpoint-dev/setpoint/pkg/apis/monitoring/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
)

// What the passes of shop (class standard, no settings of its own) write,
// compared whole (ct.Sends, ct.Diff): a test that guards what is written
// says the whole object it expects, so that a field added, dropped or
// changed by mistake fails it with a diff.

// randomPassword: the monitor's password is random: it must be there.
// wallClock: the conditions' transition times are the wall clock's
// (meta.SetStatusCondition), not the fixture's. cnpgUID: the CNPG
// Cluster's UID is the one the API gave it when the apply created it.
var (
	randomPassword = ct.Generated("data", "password")
	// generatedCA / generatedLeaf: key material is random; its shape is
	// checked by certificates_test.go.
	generatedCA   = []ct.Option{ct.Generated("data", "ca.crt"), ct.Generated("data", "ca.key")}
	generatedLeaf = []ct.Option{ct.Generated("data", "tls.crt"), ct.Generated("data", "tls.key"), ct.Generated("data", "ca.crt")}
	wallClock     = ct.Generated("status", "conditions", "*", "lastTransitionTime")
	cnpgUID       = ct.Generated("status", "provisionerRef", "uid")
)

// shopRef is the controller reference shop puts on what it owns.
var shopRef = metav1.OwnerReference{APIVersion: "postgres.setpoint.dev/v1alpha1", Kind: "PostgresCluster",
	Name: "shop", UID: "uid-shop", Controller: ptr.To(true), BlockOwnerDeletion: ptr.To(true)}

func shopRefApply() *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().WithAPIVersion("postgres.setpoint.dev/v1alpha1").
		WithKind("PostgresCluster").WithName("shop").WithUID("uid-shop").
		WithController(true).WithBlockOwnerDeletion(true)
}

func shopLabels(extra ...string) map[string]string {
	l := map[string]string{"app.kubernetes.io/managed-by": "setpoint", "postgres.setpoint.dev/cluster": "shop"}
	for i := 0; i+1 < len(extra); i += 2 {
		l[extra[i]] = extra[i+1]
	}
	return l
}

// finalizerPatch is the merge patch that sets finalizers (none: the last
// one goes), guarded by the resourceVersion it was read at.
func finalizerPatch(finalizers ...string) string {
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"finalizers": append([]string{}, finalizers...), "resourceVersion": ct.AnyVersion}})
	return string(b)
}

// shopClusterApply is the server-side apply of shop's CNPG Cluster with
// instances, the class's settings otherwise: the fields setpoint owns,
// and no others. hash is the spec-hash annotation of that spec.
func shopClusterApply(instances int, hash string) *cnpgac.ClusterApplyConfiguration {
	pooler := func(n string) []string {
		return []string{n, n + ".ns", n + ".ns.svc", n + ".ns.svc.cluster.local"}
	}
	return cnpgac.Cluster("shop", "ns").WithLabels(shopLabels()).
		WithAnnotations(map[string]string{"postgres.setpoint.dev/spec-hash": hash}).
		WithOwnerReferences(shopRefApply()).
		WithSpec(cnpgac.ClusterSpec().WithInstances(instances).
			WithImageName("ghcr.io/cloudnative-pg/postgresql:16").
			WithPostgresConfiguration(cnpgac.PostgresConfiguration().
				WithParameters(map[string]string{"max_connections": "200", "work_mem": "4MB"}).
				WithPgHBA("hostssl all +setpoint_cert_auth all cert", "hostnossl all +setpoint_cert_auth all reject",
					"host all all 10.0.0.0/8 scram-sha-256")).
			WithEnableSuperuserAccess(false).
			WithStorage(cnpgac.StorageConfiguration().WithSize("10Gi")).
			WithCertificates(cnpgac.CertificatesConfiguration().
				WithClientCASecret("shop-client-ca").WithReplicationTLSSecret("shop-replication-tls").
				WithServerAltDNSNames(append(pooler("shop-pooler-rw"), pooler("shop-pooler-ro")...)...)))
}

// monitorSecret is the monitor's generated credential: basic-auth,
// reloaded by CNPG, controlled by shop.
func monitorSecret() *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-monitor", Namespace: "ns",
			Labels: shopLabels("cnpg.io/reload", "true"), OwnerReferences: []metav1.OwnerReference{shopRef}},
		Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte("setpoint_monitor"), "password": nil},
	}
}

// shopRoleApply is the server-side apply of one of shop's own
// DatabaseRoles: every privilege-bearing field set, so that setpoint
// owns it; spec adds what the role is.
func shopRoleApply(name string, spec *cnpgac.DatabaseRoleSpecApplyConfiguration) *cnpgac.DatabaseRoleApplyConfiguration {
	return cnpgac.DatabaseRole(name, "ns").WithLabels(shopLabels()).WithOwnerReferences(shopRefApply()).
		WithSpec(spec.WithCluster(cnpgac.LocalObjectReference().WithName("shop")).
			WithComment("managed by setpoint for PostgresCluster ns/shop").
			WithSuperuser(false).WithCreateDB(false).WithCreateRole(false).WithReplication(false).WithBypassRLS(false).
			WithInherit(true).WithConnectionLimit(-1))
}

// wantMonitorRole is setpoint_monitor's: it logs in with the monitor's
// Secret, is in pg_monitor, and goes with the cluster.
func wantMonitorRole() *cnpgac.DatabaseRoleApplyConfiguration {
	return shopRoleApply("shop.setpoint-monitor", cnpgac.DatabaseRoleSpec().WithName("setpoint_monitor").
		WithLogin(true).WithInRoles("pg_monitor").
		WithPasswordSecret(cnpgac.LocalObjectReference().WithName("shop-monitor")).
		WithDatabaseRoleReclaimPolicy("delete"))
}

// wantCertAuthRole is the certificate group's: no login of its own, kept
// when its DatabaseRole goes.
func wantCertAuthRole() *cnpgac.DatabaseRoleApplyConfiguration {
	return shopRoleApply("shop.setpoint-cert-auth", cnpgac.DatabaseRoleSpec().WithName("setpoint_cert_auth").
		WithLogin(false).WithDatabaseRoleReclaimPolicy("retain"))
}

// retainedPatch is the merge patch a Retain deletion releases one of
// shop's children with: no owner, marked retained for shop.
const retainedPatch = `{"metadata":{"annotations":{"postgres.setpoint.dev/retained-cluster":"shop",` +
	`"postgres.setpoint.dev/retained-for":"PostgresCluster/shop"},"labels":{"postgres.setpoint.dev/retained":"true"},` +
	`"ownerReferences":[],"resourceVersion":"` + ct.AnyVersion + `"}}`

func cond(typ string, status metav1.ConditionStatus, reason, msg string) metav1.Condition {
	return metav1.Condition{Type: typ, Status: status, Reason: reason, Message: msg}
}

func blocked(typ string) metav1.Condition {
	return cond(typ, metav1.ConditionFalse, "Blocked", "waiting for ProvisionerReady")
}

// pendingStatus is shop's status while CNPG has not reported on the
// Cluster it was sent: Pending, what follows the provisioner blocked.
func pendingStatus() pgv1.PostgresClusterStatus {
	return waitingStatus(pgv1.PhasePending, 0, "CNPGPending", `CNPG: "" (0/0 instances ready)`)
}

// waitingStatus is shop's status at generation while the provisioner is
// not ready for reason: phase, what follows the provisioner blocked.
func waitingStatus(phase pgv1.Phase, generation int64, reason, msg string) pgv1.PostgresClusterStatus {
	st := pgv1.PostgresClusterStatus{Phase: phase, ObservedGeneration: generation, Conditions: []metav1.Condition{
		cond("SecretReady", metav1.ConditionTrue, "SuperuserAccessOff", "superuser access is off: there is no superuser Secret"),
		cond("ObjectStoreReady", metav1.ConditionTrue, "NotConfigured", "no object store configured"),
		cond("CertificatesReady", metav1.ConditionTrue, "ClientCAIsolated", "client certificates are signed by shop-client-ca alone; "+
			"applications verify the server with shop-server-ca; shop-server-ca follows once CloudNativePG has made its server CA"),
		cond("ProvisionerReady", metav1.ConditionFalse, reason, msg),
		blocked("MonitorReady"), blocked("PoolerReady"), blocked("BackupReady"), blocked("ConfigMapReady"),
		blocked("PodMonitorReady"), blocked("MetricsServiceReady"),
		cond("Ready", metav1.ConditionFalse, reason, "provisioner: "+msg),
	}, ProvisionerRef: &pgv1.ProvisionerReference{APIVersion: "postgresql.cnpg.io/v1", Kind: "Cluster", Name: "shop"}}
	for i := range st.Conditions {
		st.Conditions[i].ObservedGeneration = generation
	}
	return st
}

// shopStatus is shop as the fixture seeds it and the first pass
// finalizes it, with status st.
func shopStatus(st pgv1.PostgresClusterStatus) *pgv1.PostgresCluster {
	pc := cluster(pgv1.ClusterSettings{})
	pc.Finalizers = []string{Finalizer}
	pc.Status = st
	return pc
}

// deletingStatus is shop being deleted with policy, its status the
// first pass's with Deleting written over it.
func deletingStatus(policy pgv1.DeletionPolicy) *pgv1.PostgresCluster {
	st := pendingStatus()
	st.Phase = pgv1.PhaseDeleting
	last := len(st.Conditions) - 1
	st.Conditions[last] = cond("Ready", metav1.ConditionFalse, "Deleting", "deleting with clusterDeletionPolicy "+string(policy))
	st.Conditions[last].ObservedGeneration = 1
	pc := shopStatus(st)
	pc.DeletionTimestamp = ptr.To(metav1.NewTime(t0))
	pc.Spec.ClusterDeletionPolicy = policy
	return pc
}

// provisioningStatus is shop's status once CNPG's "Setting up primary"
// has held long enough (phaseSettle) to be written.
func provisioningStatus() pgv1.PostgresClusterStatus {
	st := waitingStatus(pgv1.PhaseProvisioning, 0, "CNPGProvisioning", `CNPG: "Setting up primary" (0/3 instances ready)`)
	st.Instances = 3
	return st
}

// applyFailedStatus is shop, its instances changed to 2 (generation 1),
// where the API server failed the CNPG Cluster's apply: ProvisionerReady
// says why.
func applyFailedStatus() *pgv1.PostgresCluster {
	pc := shopStatus(waitingStatus(pgv1.PhasePending, 1, "ApplyFailed",
		"apply CNPG cluster: Internal error occurred: etcd is unavailable"))
	pc.Spec.Instances = ptr.To[int32](2)
	return pc
}

// wantMetricsService is shop's metrics Service as applied: headless, over
// the instances' metrics port, annotated for Prometheus.
func wantMetricsService() *corev1.Service {
	return &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-metrics", Namespace: "ns", Labels: shopLabels(),
			Annotations:     map[string]string{"prometheus.io/scrape": "true", "prometheus.io/port": "9187", "prometheus.io/path": "/metrics"},
			OwnerReferences: []metav1.OwnerReference{shopRef}},
		Spec: corev1.ServiceSpec{ClusterIP: corev1.ClusterIPNone, Selector: instanceSelector("shop"),
			Ports: []corev1.ServicePort{{Name: "metrics", Protocol: corev1.ProtocolTCP, Port: 9187, TargetPort: intstr.FromString("metrics")}}},
	}
}

// wantPodMonitor is the PodMonitor CNPG recommends for shop, as applied:
// the cluster's instance pods, scraped on their metrics port.
func wantPodMonitor() *monitoringv1.PodMonitor {
	return &monitoringv1.PodMonitor{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-metrics", Namespace: "ns", Labels: shopLabels(),
			OwnerReferences: []metav1.OwnerReference{shopRef}},
		Spec: monitoringv1.PodMonitorSpec{
			Selector:            metav1.LabelSelector{MatchLabels: map[string]string{"cnpg.io/cluster": "shop", "cnpg.io/podRole": "instance"}},
			PodMetricsEndpoints: []monitoringv1.PodMetricsEndpoint{{Port: ptr.To("metrics")}},
		},
	}
}

// storedMonitorRole is setpoint_monitor's DatabaseRole as its first
// apply stores it (wantMonitorRole is the apply).
func storedMonitorRole() *cnpgv1.DatabaseRole {
	return &cnpgv1.DatabaseRole{
		ObjectMeta: metav1.ObjectMeta{Name: "shop.setpoint-monitor", Namespace: "ns", Labels: shopLabels(),
			OwnerReferences: []metav1.OwnerReference{shopRef}},
		Spec: cnpgv1.DatabaseRoleSpec{
			Cluster: cnpgv1.LocalObjectReference{Name: "shop"}, Name: "setpoint_monitor",
			Comment: "managed by setpoint for PostgresCluster ns/shop",
			Login:   true, Inherit: ptr.To(true), ConnectionLimit: ptr.To[int64](-1), InRoles: []string{"pg_monitor"},
			PasswordSecret:            &cnpgv1.LocalObjectReference{Name: "shop-monitor"},
			DatabaseRoleReclaimPolicy: "delete",
		},
	}
}

// storedCertAuthRole is the certificate group's DatabaseRole as its
// first apply stores it (wantCertAuthRole is the apply): no login, no
// password, no client certificate, kept when the DatabaseRole goes.
func storedCertAuthRole() *cnpgv1.DatabaseRole {
	return &cnpgv1.DatabaseRole{
		ObjectMeta: metav1.ObjectMeta{Name: "shop.setpoint-cert-auth", Namespace: "ns", Labels: shopLabels(),
			OwnerReferences: []metav1.OwnerReference{shopRef}},
		Spec: cnpgv1.DatabaseRoleSpec{
			Cluster: cnpgv1.LocalObjectReference{Name: "shop"}, Name: "setpoint_cert_auth",
			Comment: "managed by setpoint for PostgresCluster ns/shop",
			Inherit: ptr.To(true), ConnectionLimit: ptr.To[int64](-1),
			DatabaseRoleReclaimPolicy: "retain",
		},
	}
}

// recoveredClusterApply is the apply that recreates shop's lost CNPG
// Cluster (UID lostUID, archiving as "shop") from its latest backup, with
// superuser access on (provisionerPass): bootstrapped from the lost
// cluster's folder through the barman-cloud plugin, archiving to a new
// folder, and marked with what it was recreated from.
func recoveredClusterApply() *cnpgac.ClusterApplyConfiguration {
	barman := func(server string) *cnpgac.PluginConfigurationApplyConfiguration {
		return cnpgac.PluginConfiguration().WithName("barman-cloud.cloudnative-pg.io").
			WithParameters(map[string]string{"barmanObjectName": "shop-backup", "serverName": server})
	}
	cl := superuserClusterApply("2e9b1c1d3a362e12").WithAnnotations(map[string]string{
		"postgres.setpoint.dev/recovered-from": "shop", "postgres.setpoint.dev/recreated-as": "latest-backup",
		"postgres.setpoint.dev/recreated-from": lostUID,
	})
	cl.Spec.WithPlugins(barman("shop-0badc0de").WithIsWALArchiver(true)).
		WithBootstrap(cnpgac.BootstrapConfiguration().WithRecovery(cnpgac.BootstrapRecovery().WithSource("restore-source"))).
		WithExternalClusters(cnpgac.ExternalCluster().WithName("restore-source").WithPluginConfiguration(barman("shop")))
	return cl
}

// superuserClusterApply is shopClusterApply with superuser access on, as
// provisionerPass wants it: the access, and the Secret that holds it.
func superuserClusterApply(hash string) *cnpgac.ClusterApplyConfiguration {
	cl := shopClusterApply(3, hash)
	cl.Spec.WithEnableSuperuserAccess(true).WithSuperuserSecret(cnpgac.LocalObjectReference().WithName("shop-superuser"))
	return cl
}

// grownClusterApply is superuserClusterApply with autoGrowSettings' 64Mi
// grown to 77Mi at t0, the grow marked on the CNPG Cluster.
func grownClusterApply() *cnpgac.ClusterApplyConfiguration {
	cl := superuserClusterApply("1f2acf3d34edd70b").WithAnnotations(map[string]string{
		"postgres.setpoint.dev/storage-grown": `{"size":"77Mi","from":"64Mi","at":"2026-11-30T12:00:00Z"}`})
	cl.Spec.Storage.WithSize("77Mi")
	return cl
}

// wantClientCA is shop's client CA Secret as created: ours, labelled for
// CNPG to reload it, holding a CA and its key.
func wantClientCA() *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-client-ca", Namespace: "ns", Labels: reloadLabels(),
			OwnerReferences: []metav1.OwnerReference{shopRef}},
		Type: corev1.SecretTypeOpaque,
		Data: map[string][]byte{"ca.crt": nil, "ca.key": nil},
	}
}

// wantReplicationTLS is shop's streaming_replica certificate as created.
func wantReplicationTLS() *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-replication-tls", Namespace: "ns", Labels: reloadLabels(),
			OwnerReferences: []metav1.OwnerReference{shopRef}},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.crt": nil, "tls.key": nil, "ca.crt": nil},
	}
}

func reloadLabels() map[string]string {
	l := shopLabels()
	l["cnpg.io/reload"] = "true"
	return l
}
