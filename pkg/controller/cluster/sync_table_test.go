package cluster

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	monitoringv1 "github.com/setpoint-dev/setpoint/pkg/apis/monitoring/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

var errBoom = ct.ServerError("etcd is unavailable")

// passCase is one whole pass of Controller.sync on a fixture.
type passCase = ct.Case[*fixture]

func TestSyncPasses(t *testing.T) {
	t.Parallel()
	first := []ct.Write{
		{Verb: "patch", Resource: "postgresclusters", Name: "shop", Check: ct.Sends(finalizerPatch(Finalizer))},
		{Verb: "patch", Resource: "postgresclusterclasses", Name: "standard", Check: ct.Sends(finalizerPatch(ClassFinalizer))},
		{Verb: "create", Resource: "secrets", Name: "shop-client-ca", Check: ct.Sends(wantClientCA(), generatedCA...)},
		{Verb: "create", Resource: "secrets", Name: "shop-replication-tls", Check: ct.Sends(wantReplicationTLS(), generatedLeaf...)},
		{Verb: "patch", Resource: "clusters", Name: "shop", Check: ct.Sends(shopClusterApply(3, "2329690e03eb9f9a"))},
		// The monitor's objects, prepared ahead while CNPG brings the
		// Cluster up (monitor_ahead.go).
		{Verb: "create", Resource: "secrets", Name: "shop-monitor", Check: ct.Sends(monitorSecret(), randomPassword)},
		{Verb: "patch", Resource: "databaseroles", Name: "shop.setpoint-monitor", Check: ct.Sends(wantMonitorRole())},
		{Verb: "patch", Resource: "databaseroles", Name: "shop.setpoint-cert-auth", Check: ct.Sends(wantCertAuthRole())},
	}
	for _, tc := range []passCase{{
		Name: "a new cluster: finalizers, the CNPG Cluster and the monitor's objects applied, status Pending until CNPG reports",
		Writes: append(first, ct.Write{Verb: "update", Resource: "postgresclusters", Subresource: "status", Name: "shop",
			Check: ct.Sends(shopStatus(pendingStatus()), wallClock, cnpgUID)}),
		Phase: pgv1.PhasePending, Reason: pgv1.ReasonCNPGPending,
	}, {
		Name:    "nothing changed since: no write, no Event",
		Prepare: firstPass,
		Phase:   pgv1.PhasePending, Reason: pgv1.ReasonCNPGPending,
	}, {
		Name: "CNPG sets up the primary: held back while it may flap, then Provisioning",
		Prepare: func(t *testing.T, f *fixture) {
			firstPass(t, f)
			f.setCNPGPhase("Setting up primary")
			if res, err := f.sync("shop"); err != nil || res.RequeueAfter != phaseSettle {
				t.Fatalf("the pass that first sees the phase: %+v, %v; want it held back %s", res, err, phaseSettle)
			}
			f.clock.Step(phaseSettle)
		},
		Writes: []ct.Write{{Verb: "update", Resource: "postgresclusters", Subresource: "status", Name: "shop",
			Check: ct.Sends(shopStatus(provisioningStatus()), wallClock, cnpgUID)}},
		Phase: pgv1.PhaseProvisioning, Reason: pgv1.ReasonCNPGProvisioning,
	}, {
		Name: "the status write conflicts: the stored status stays, the pass is retried",
		Faults: []ct.Fault{{Verb: "update", Resource: "postgresclusters", Subresource: "status", Times: 1,
			Err: apierrors.NewConflict(schema.GroupResource{Group: pgv1.GroupName, Resource: "postgresclusters"}, "shop", errors.New("the object has been modified"))}},
		Writes: append(first, ct.Write{Verb: "update", Resource: "postgresclusters", Subresource: "status", Name: "shop",
			Check: ct.Sends(shopStatus(pendingStatus()), wallClock, cnpgUID)}),
		Err: apierrors.IsConflict,
	}, {
		Name: "the API server fails the CNPG Cluster's apply: ProvisionerReady says so, status is written, the pass is retried",
		Prepare: func(t *testing.T, f *fixture) {
			firstPass(t, f)
			f.updateCluster(func(pc *pgv1.PostgresCluster) { pc.Spec.Instances = new(int32(2)) })
		},
		Faults: []ct.Fault{{Verb: "patch", Resource: "clusters", Name: "shop", Err: errBoom}},
		Writes: []ct.Write{
			{Verb: "patch", Resource: "clusters", Name: "shop", Check: ct.Sends(shopClusterApply(2, "c41bba8af10b6e29"))},
			{Verb: "update", Resource: "postgresclusters", Subresource: "status", Name: "shop",
				Check: ct.Sends(applyFailedStatus(), wallClock, cnpgUID)},
		},
		Phase: pgv1.PhasePending, Reason: pgv1.ReasonApplyFailed,
		Err: func(err error) bool { return errors.Is(err, errBoom) && apierrors.IsInternalError(err) },
	}, {
		Name: "deletion with policy Delete: Deleting is written first, then the CNPG Cluster goes; the finalizer waits for it",
		Prepare: func(t *testing.T, f *fixture) {
			firstPass(t, f)
			f.updateCluster(func(pc *pgv1.PostgresCluster) {
				now := metav1.NewTime(t0)
				pc.DeletionTimestamp, pc.Spec.ClusterDeletionPolicy = &now, pgv1.DeletionPolicyDelete
			})
		},
		Writes: []ct.Write{
			{Verb: "update", Resource: "postgresclusters", Subresource: "status", Name: "shop",
				Check: ct.Sends(deletingStatus(pgv1.DeletionPolicyDelete), wallClock, cnpgUID)},
			{Verb: "delete", Resource: "clusters", Name: "shop"},
		},
		Phase: pgv1.PhaseDeleting, Reason: pgv1.ReasonDeleting,
	}, {
		// The Pooler, ScheduledBackup and PodMonitor are read by their
		// components' own readers (watch.go), teardown included.
		Name: "deletion with policy Delete: the components' own children go, last built first, before the CNPG Cluster",
		Prepare: func(t *testing.T, f *fixture) {
			firstPass(t, f)
			f.addOwnedChildren(true)
			f.updateCluster(func(pc *pgv1.PostgresCluster) {
				now := metav1.NewTime(t0)
				pc.DeletionTimestamp, pc.Spec.ClusterDeletionPolicy = &now, pgv1.DeletionPolicyDelete
			})
		},
		Writes: []ct.Write{
			{Verb: "update", Resource: "postgresclusters", Subresource: "status", Name: "shop",
				Check: ct.Sends(deletingStatus(pgv1.DeletionPolicyDelete), wallClock, cnpgUID)},
			{Verb: "delete", Resource: "scheduledbackups", Name: "shop-backup"},
			{Verb: "delete", Resource: "poolers", Name: "shop-pooler-rw"},
			{Verb: "delete", Resource: "clusters", Name: "shop"},
		},
		Phase: pgv1.PhaseDeleting, Reason: pgv1.ReasonDeleting,
	}, {
		// (A Pooler holds no data: Retain deletes it too, and releases
		// wait until it has gone.)
		Name: "deletion with policy Retain: the components' own children are released to a later namesake",
		Prepare: func(t *testing.T, f *fixture) {
			firstPass(t, f)
			f.addOwnedChildren(false)
			f.updateCluster(func(pc *pgv1.PostgresCluster) {
				now := metav1.NewTime(t0)
				pc.DeletionTimestamp, pc.Spec.ClusterDeletionPolicy = &now, pgv1.DeletionPolicyRetain
			})
		},
		Writes: []ct.Write{
			{Verb: "update", Resource: "postgresclusters", Subresource: "status", Name: "shop",
				Check: ct.Sends(deletingStatus(pgv1.DeletionPolicyRetain), wallClock, cnpgUID)},
			{Verb: "patch", Resource: "secrets", Name: "shop-client-ca", Check: ct.Sends(retainedPatch)},
			{Verb: "patch", Resource: "secrets", Name: "shop-replication-tls", Check: ct.Sends(retainedPatch)},
			{Verb: "patch", Resource: "clusters", Name: "shop", Check: ct.Sends(retainedPatch)},
			{Verb: "patch", Resource: "scheduledbackups", Name: "shop-backup", Check: ct.Sends(retainedPatch)},
			{Verb: "patch", Resource: "podmonitors", Name: "shop-metrics", Check: ct.Sends(retainedPatch)},
			{Verb: "patch", Resource: "postgresclusters", Name: "shop", Check: ct.Sends(finalizerPatch())},
		},
		Events: []string{"Normal Retained kept Secret shop-client-ca, Secret shop-replication-tls, CNPG Cluster shop, ScheduledBackup shop-backup, PodMonitor shop-metrics"},
		Phase:  pgv1.PhaseDeleting, Reason: pgv1.ReasonDeleting,
	}} {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			runPass(t, tc)
		})
	}
}

// runPass runs tc on shop of class standard, both carrying a
// resourceVersion as stored objects do (the finalizer patches are
// guarded by it).
func runPass(t *testing.T, tc passCase) {
	cl, pc := class(), cluster(pgv1.ClusterSettings{})
	cl.ResourceVersion, pc.ResourceVersion = "1", "1"
	ct.RunCase(t, tc, newFixture(t, nil, []runtime.Object{cl, pc}), "shop")
}

func firstPass(t *testing.T, f *fixture) {
	t.Helper()
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
}

// addOwnedChildren stores a ScheduledBackup, a PodMonitor and, withPooler,
// a Pooler of the cluster, as earlier passes would have left them.
func (f *fixture) addOwnedChildren(withPooler bool) {
	f.t.Helper()
	ctx, pc := f.t.Context(), f.cluster("shop")
	meta := func(name string) metav1.ObjectMeta {
		return metav1.ObjectMeta{Namespace: "ns", Name: name, OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(pc, gvk)}}
	}
	opts := metav1.CreateOptions{}
	var err1 error
	if withPooler {
		_, err1 = f.pg.CNPGV1().Poolers("ns").Create(ctx, &cnpgv1.Pooler{ObjectMeta: meta("shop-pooler-rw")}, opts)
	}
	_, err2 := f.pg.CNPGV1().ScheduledBackups("ns").Create(ctx, &cnpgv1.ScheduledBackup{ObjectMeta: meta("shop-backup")}, opts)
	_, err3 := f.pg.MonitoringV1().PodMonitors("ns").Create(ctx, &monitoringv1.PodMonitor{ObjectMeta: meta("shop-metrics")}, opts)
	if err := errors.Join(err1, err2, err3); err != nil {
		f.t.Fatal(err)
	}
}

// setCNPGPhase plays CNPG reporting phase on the CNPG Cluster.
func (f *fixture) setCNPGPhase(phase string) {
	f.t.Helper()
	cl, err := f.pg.CNPGV1().Clusters("ns").Get(f.t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	cl.Status = cnpgv1.ClusterStatus{Phase: phase, Instances: 3}
	if _, err := f.pg.CNPGV1().Clusters("ns").UpdateStatus(f.t.Context(), cl, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// updateCluster changes the stored PostgresCluster as a user (or the API
// server, for a deletion) would; a spec change is a new generation.
func (f *fixture) updateCluster(change func(*pgv1.PostgresCluster)) {
	f.t.Helper()
	pc := f.cluster("shop")
	change(pc)
	pc.Generation++
	if _, err := f.pg.PostgresV1alpha1().PostgresClusters("ns").Update(f.t.Context(), pc, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}
