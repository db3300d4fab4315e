package cluster

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/record"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

const lostUID = "0badc0de-1111-2222-3333-444455556666"

var backupSettings = pgv1.ClusterSettings{Backup: &pgv1.BackupSpec{ObjectStore: &pgv1.ObjectStoreSpec{
	DestinationPath: "s3://b/pg", CredentialsSecretName: "creds"}}}

// lostPass is a provisioner pass of a cluster that had been Ready (its
// connection ConfigMap records CNPG Cluster lostUID archiving as "shop")
// and whose CNPG Cluster is gone; annotation is the recreate request.
func lostPass(t *testing.T, request string, objs ...*cnpgv1.Cluster) (*pass, *fake.Clientset, *record.FakeRecorder) {
	t.Helper()
	pc := cluster(backupSettings)
	if request != "" {
		pc.Annotations = map[string]string{pgv1.RecreateAnnotation: request, "other": "kept"}
	}
	cs := fake.NewClientset(pc)
	for _, o := range objs {
		if err := cs.Tracker().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	p := provisionerPass(t, cs, backupSettings)
	p.cluster = pc
	rec := record.NewFakeRecorder(10)
	p.deps.recorder = rec
	p.obs.configMap = informers.CachedConfigMapOf(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shop-connection", Namespace: "ns",
		OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(pc, gvk)},
		Annotations:     map[string]string{provisionerUIDAnnotation: lostUID, archiveServerAnnotation: "shop", archiveRootAnnotation: "s3://b/pg/ns"}}})
	p.obs.objectStore = &barmanv1.ObjectStore{ObjectMeta: metav1.ObjectMeta{Name: "shop-backup", Namespace: "ns",
		OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(pc, gvk)}},
		Spec: barmanv1.ObjectStoreSpec{Configuration: barmanv1.BarmanObjectStoreConfiguration{DestinationPath: "s3://b/pg/ns"}}}
	return p, cs, rec
}

// requestRemoved is lostPass's PostgresCluster once the recreate request
// is taken off it: the other annotation stays, nothing else changes.
func requestRemoved() *pgv1.PostgresCluster {
	pc := cluster(backupSettings)
	pc.Annotations = map[string]string{"other": "kept"}
	return pc
}

func writes(cs *fake.Clientset, resource string) []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range cs.Actions() {
		if a.GetResource().Resource == resource && a.GetVerb() != "list" && a.GetVerb() != "get" {
			out = append(out, a)
		}
	}
	return out
}

func TestLostClusterIsNotCreatedAgain(t *testing.T) {
	t.Parallel()
	p, cs, _ := lostPass(t, "")
	c := provisionerComponent{}
	err := c.Reconcile(t.Context(), p)
	h := c.Observe(t.Context(), p, err)
	if h.Phase != pgv1.PhaseFailed || h.Reason != pgv1.ReasonProvisionerLost {
		t.Fatalf("health = %+v, want Failed %s", h, pgv1.ReasonProvisionerLost)
	}
	for _, want := range []string{lostUID, "was deleted after it had been Ready", "recreate=latest-backup", "recreate=empty", `folder "shop"`} {
		if !strings.Contains(h.Message, want) {
			t.Errorf("message %q lacks %q", h.Message, want)
		}
	}
	if w := writes(cs, "clusters"); len(w) != 0 {
		t.Fatalf("a lost cluster was written: %v", w)
	}
	if p.contracts.CNPGCluster != nil {
		t.Fatal("a lost cluster was published to later components")
	}
}

func TestCacheLagIsNotALoss(t *testing.T) {
	t.Parallel()
	// Our own create (or anyone's) not in the cache yet: the API server has it.
	live := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", UID: "new-uid",
		OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(cluster(backupSettings), gvk)}}}
	p, _, _ := lostPass(t, "", live)
	c := provisionerComponent{}
	err := c.Reconcile(t.Context(), p)
	if h := c.Observe(t.Context(), p, err); h.Reason == pgv1.ReasonProvisionerLost || p.provisioner.loss != nil {
		t.Fatalf("a CNPG Cluster the cache did not show yet was taken as lost: %+v", h)
	}
	if p.provisioner.cnpg == nil || p.provisioner.cnpg.UID != "new-uid" {
		t.Fatalf("the live CNPG Cluster was not used: %+v", p.provisioner.cnpg)
	}
}

func TestNeverReadyClusterIsCreated(t *testing.T) {
	t.Parallel()
	p, cs, _ := lostPass(t, "")
	p.obs.configMap = nil
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if p.provisioner.loss != nil || len(writes(cs, "clusters")) != 1 {
		t.Fatalf("a cluster that was never Ready was not created: loss %+v, writes %v", p.provisioner.loss, writes(cs, "clusters"))
	}
}

func TestStatusMakesOnlyMoreCareful(t *testing.T) {
	t.Parallel()
	// The ConfigMap is gone too, but status says it was published.
	p, cs, _ := lostPass(t, pgv1.RecreateLatestBackup)
	p.obs.configMap = nil
	p.status.Resources = &pgv1.ClusterResources{ConfigMapRef: &pgv1.LocalObjectReference{Name: "shop-connection"}}
	p.status.ProvisionerRef = &pgv1.ProvisionerReference{UID: lostUID}
	c := provisionerComponent{}
	h := c.Observe(t.Context(), p, c.Reconcile(t.Context(), p))
	if h.Reason != pgv1.ReasonProvisionerLost || !strings.Contains(h.Message, "no record that the lost cluster archived") {
		t.Fatalf("health = %+v: status alone must not point a recovery at a folder", h)
	}
	if len(writes(cs, "clusters")) != 0 {
		t.Fatal("created a cluster")
	}
}

func TestRecreateEmpty(t *testing.T) {
	t.Parallel()
	p, cs, rec := lostPass(t, pgv1.RecreateEmpty)
	p.cluster.Spec.Restore = &pgv1.RestoreSpec{Source: "elsewhere"} // the lost cluster's beginning
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	cl := p.provisioner.cnpg
	if cl == nil || cl.Annotations[recreatedAsAnnotation] != pgv1.RecreateEmpty || cl.Annotations[recreatedFromAnnotation] != lostUID {
		t.Fatalf("recreated cluster = %+v", cl)
	}
	if cl.Spec.Bootstrap != nil || len(cl.Spec.ExternalClusters) != 0 {
		t.Errorf("empty recreate bootstraps from %+v / %+v", cl.Spec.Bootstrap, cl.Spec.ExternalClusters)
	}
	if got := pluginServerName(cl); got != "shop-0badc0de" {
		t.Errorf("serverName = %q, want a new folder shop-0badc0de", got)
	}
	pc, err := cs.PostgresV1alpha1().PostgresClusters("ns").Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := ct.Diff(requestRemoved(), pc); d != "" {
		t.Errorf("PostgresCluster as stored: %s; want only the request removed", d)
	}
	if e := <-rec.Events; !strings.Contains(e, "Recreated") {
		t.Errorf("event = %q", e)
	}

	// The next pass reads the recreation back from the CNPG Cluster and
	// keeps the bootstrap as created.
	next, _, _ := lostPass(t, "", cl)
	next.cluster.Spec.Restore = p.cluster.Spec.Restore
	next.obs.cnpg = cl
	if err := (provisionerComponent{}).Reconcile(t.Context(), next); err != nil {
		t.Fatal(err)
	}
	if next.provisioner.recreate == nil || next.provisioner.cnpg.Spec.Bootstrap != nil || pluginServerName(next.provisioner.cnpg) != "shop-0badc0de" {
		t.Fatalf("later pass: recreate %+v, cluster %+v", next.provisioner.recreate, next.provisioner.cnpg.Spec)
	}
}

func TestRecreateLatestBackup(t *testing.T) {
	t.Parallel()
	p, cs, _ := lostPass(t, pgv1.RecreateLatestBackup)
	c := provisionerComponent{}
	h := c.Observe(t.Context(), p, c.Reconcile(t.Context(), p))
	if h.Reason != pgv1.ReasonProvisionerLost || !strings.Contains(h.Message, `no completed backup of folder "shop"`) {
		t.Fatalf("without a backup: %+v", h)
	}
	if len(writes(cs, "clusters")) != 0 || len(writes(cs, "postgresclusters")) != 0 {
		t.Fatalf("a refused request wrote: %v", cs.Actions())
	}

	p, cs, _ = lostPass(t, pgv1.RecreateLatestBackup)
	now := metav1.Now()
	p.obs.objectStore.Status.ServerRecoveryWindow = map[string]barmanv1.RecoveryWindow{"shop": {LastSuccessfulBackupTime: &now}}
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	// Recovered from the lost cluster's folder, archiving to a new one.
	applies := writes(cs, "clusters")
	if len(applies) != 1 {
		t.Fatalf("writes to the CNPG Cluster: %v, want one apply", applies)
	}
	if d := ct.Sends(recoveredClusterApply())(applies[0]); d != "" {
		t.Errorf("recovered cluster's apply: %s", d)
	}
	if r := p.status.RestoredFrom; r != nil {
		t.Errorf("restoredFrom = %+v before CNPG reports the recovery done", r)
	}
	if len(writes(cs, "postgresclusters")) != 1 {
		t.Errorf("request not removed in one write: %v", cs.Actions())
	}
	pc, err := cs.PostgresV1alpha1().PostgresClusters("ns").Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := ct.Diff(requestRemoved(), pc); d != "" {
		t.Errorf("PostgresCluster as stored: %s; want only the request removed", d)
	}
}

func TestRecreateRefusesAnotherRoot(t *testing.T) {
	t.Parallel()
	p, _, _ := lostPass(t, pgv1.RecreateLatestBackup)
	now := metav1.Now()
	p.obs.objectStore.Status.ServerRecoveryWindow = map[string]barmanv1.RecoveryWindow{"shop": {LastSuccessfulBackupTime: &now}}
	p.obs.objectStore.Spec.Configuration.DestinationPath = "s3://b/other"
	c := provisionerComponent{}
	if h := c.Observe(t.Context(), p, c.Reconcile(t.Context(), p)); !strings.Contains(h.Message, `points at "s3://b/other" now`) {
		t.Fatalf("health = %+v", h)
	}
}

func TestRequestWithNothingLostIsRemoved(t *testing.T) {
	t.Parallel()
	existing := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", UID: lostUID,
		OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(cluster(backupSettings), gvk)}}}
	p, cs, rec := lostPass(t, pgv1.RecreateEmpty, existing)
	p.obs.cnpg = existing
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if p.provisioner.loss != nil {
		t.Fatalf("loss = %+v", p.provisioner.loss)
	}
	if e := <-rec.Events; !strings.Contains(e, "RecreateIgnored") {
		t.Errorf("event = %q", e)
	}
	pc, _ := cs.PostgresV1alpha1().PostgresClusters("ns").Get(t.Context(), "shop", metav1.GetOptions{})
	if d := ct.Diff(requestRemoved(), pc); d != "" {
		t.Errorf("a request with nothing lost was kept, or more changed: %s", d)
	}
}

func TestDeletingClusterIsReportedNotWritten(t *testing.T) {
	t.Parallel()
	now := metav1.Now()
	going := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", UID: lostUID, DeletionTimestamp: &now,
		Finalizers:      []string{"x"},
		OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(cluster(backupSettings), gvk)}}}
	p, cs, _ := lostPass(t, pgv1.RecreateEmpty, going)
	p.obs.cnpg = going
	c := provisionerComponent{}
	h := c.Observe(t.Context(), p, c.Reconcile(t.Context(), p))
	if h.Reason != pgv1.ReasonProvisionerLost || !strings.Contains(h.Message, "is being deleted") {
		t.Fatalf("health = %+v", h)
	}
	if len(writes(cs, "clusters")) != 0 || len(writes(cs, "postgresclusters")) != 0 {
		t.Fatalf("wrote while the CNPG Cluster is being deleted: %v", cs.Actions())
	}
}
