package cluster

import (
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

func provisionerPass(t *testing.T, cs *fake.Clientset, s pgv1.ClusterSettings) *pass {
	t.Helper()
	pc := cluster(s)
	want, err := resolve(pc, class())
	if err != nil {
		t.Fatal(err)
	}
	p := testPass()
	// The pass runs at t0 on a clock of its own.
	p.cluster, p.want, p.deps = pc, want, &deps{pg: cs, clock: testClock()}
	p.obs = &observation{}
	// Superuser access on, as an earlier setpoint always had it.
	p.want.Superuser = true
	p.contracts.Secret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser"}}
	return p
}

func TestProvisionerAppliesOnlyOnChangeAndRepairsDrift(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	c := provisionerComponent{}
	p := provisionerPass(t, cs, pgv1.ClusterSettings{})
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	// The class's settings and the spec's hash; no backup section
	// without a snapshot class.
	applies := ct.Writes(cs.Actions())
	if len(applies) != 1 {
		t.Fatalf("first pass wrote %v, want one apply", applies)
	}
	if d := ct.Sends(superuserClusterApply("d702e3744fe55695"))(applies[0]); d != "" {
		t.Fatalf("apply of the CNPG Cluster: %s", d)
	}
	applied := p.provisioner.cnpg

	// Same desired state, object as applied: no write.
	n := len(cs.Actions())
	p = provisionerPass(t, cs, pgv1.ClusterSettings{})
	p.obs.cnpg = applied
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if len(cs.Actions()) != n {
		t.Fatalf("converged pass wrote: %v", cs.Actions()[n:])
	}

	// Someone changed a field we own: repaired.
	drifted := applied.DeepCopy()
	drifted.Spec.Instances = 7
	p.obs.cnpg = drifted
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if len(cs.Actions()) != n+1 {
		t.Fatalf("drift not repaired: %d requests", len(cs.Actions())-n)
	}
	if d := ct.Sends(superuserClusterApply("d702e3744fe55695"))(cs.Actions()[n]); d != "" {
		t.Fatalf("drift not repaired by the same apply: %s", d)
	}

	// A field CNPG defaulted elsewhere is not drift.
	defaulted := p.provisioner.cnpg.DeepCopy()
	defaulted.Spec.PostgresConfiguration.Parameters["archive_mode"] = "on"
	p = provisionerPass(t, cs, pgv1.ClusterSettings{})
	p.obs.cnpg = defaulted
	n = len(cs.Actions())
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if len(cs.Actions()) != n {
		t.Fatalf("a CNPG default was treated as drift")
	}

	// A parameter we stop setting is noticed through the hash.
	p = provisionerPass(t, cs, pgv1.ClusterSettings{Instances: ptr.To[int32](3)})
	p.want.Settings.PostgreSQLConfig = map[string]string{"max_connections": "200"}
	p.obs.cnpg = defaulted
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if len(cs.Actions()) != n+1 {
		t.Fatalf("dropping work_mem did not re-apply")
	}
	if h := c.Observe(t.Context(), p, nil); h.Reason != "SpecApplied" {
		t.Fatalf("health after changing a live cluster = %+v, want SpecApplied", h)
	}
}

func TestSecretIsNeverRegenerated(t *testing.T) {
	t.Parallel()
	p := testPass()
	existing := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser", Namespace: "ns", Labels: superuserLabels("shop"),
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.cluster, gvk)}},
		Data: map[string][]byte{"username": []byte("postgres"), "password": []byte("kept")},
	}
	kube := kubefake(existing)
	p.deps = &deps{kube: kube, recorder: discard{}, clock: testClock()}
	p.want = &desired{Superuser: true}
	p.obs = &observation{} // a stale cache: the Secret exists but we did not see it
	c := secretComponent{}
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if string(p.secret.superuser.Data["password"]) != "kept" {
		t.Fatal("a stale cache led to a new password")
	}
}

// A Secret of that name that setpoint did not create is refused, not
// taken over, even though the label-selected cache cannot see it.
func TestForeignSuperuserSecretIsRefused(t *testing.T) {
	t.Parallel()
	p := testPass()
	foreign := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser", Namespace: "ns"},
		Data:       map[string][]byte{"username": []byte("postgres"), "password": []byte("theirs")},
	}
	kube := kubefake(foreign)
	p.deps = &deps{kube: kube, recorder: discard{}, clock: testClock()}
	p.want = &desired{Superuser: true}
	p.obs = &observation{}
	c := secretComponent{}
	err := c.Reconcile(t.Context(), p)
	h := c.Observe(t.Context(), p, err)
	if h.Phase != pgv1.PhaseFailed || h.Reason != "SecretConflict" || !strings.Contains(h.Message, `Secret "shop-superuser" exists and was not created by setpoint`) {
		t.Fatalf("health = %+v", h)
	}
	got, _ := kube.CoreV1().Secrets("ns").Get(t.Context(), "shop-superuser", metav1.GetOptions{})
	if d := ct.Diff(foreign, got); d != "" {
		t.Fatalf("foreign Secret not left whole as it was: %s", d)
	}
}

// A CNPG Cluster of that name that setpoint did not create is refused:
// no owner reference, no apply.
func TestForeignCNPGClusterIsRefused(t *testing.T) {
	t.Parallel()
	legacy := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}, Spec: cnpgv1.ClusterSpec{Instances: 1}}
	cs := fake.NewClientset(legacy)
	p := provisionerPass(t, cs, pgv1.ClusterSettings{})
	p.obs.cnpg = legacy // CNPG Clusters are cached in full: the cache sees it
	c := provisionerComponent{}
	err := c.Reconcile(t.Context(), p)
	h := c.Observe(t.Context(), p, err)
	if h.Phase != pgv1.PhaseFailed || h.Reason != "ClusterConflict" || !strings.Contains(h.Message, `CNPG Cluster "shop" exists and was not created by setpoint`) {
		t.Fatalf("health = %+v", h)
	}
	for _, a := range cs.Actions() {
		if a.GetVerb() != "get" {
			t.Fatalf("wrote to a foreign CNPG Cluster: %v", a)
		}
	}
}

// A CNPG Cluster a Retain deletion kept for a cluster of this name is
// adopted; one kept for another name is not.
func TestRetainedCNPGClusterIsAdoptedOnlyByItsCluster(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		retainedFor string
		want        string
	}{{"PostgresCluster/shop", ""}, {"PostgresCluster/other", "ClusterConflict"}} {
		kept := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns",
			Labels:      map[string]string{ownership.ManagedByLabel: ownership.ManagedByValue, ownership.RetainedLabel: "true"},
			Annotations: map[string]string{ownership.RetainedForAnnotation: tc.retainedFor, ownership.RetainedClusterAnnotation: "shop"}}}
		cs := fake.NewClientset(kept)
		p := provisionerPass(t, cs, pgv1.ClusterSettings{})
		p.obs.cnpg = kept
		p.deps.recorder = discard{}
		err := (provisionerComponent{}).Reconcile(t.Context(), p)
		h := (provisionerComponent{}).Observe(t.Context(), p, err)
		if tc.want != "" {
			if h.Reason != tc.want {
				t.Errorf("retained for %s: health %+v", tc.retainedFor, h)
			}
			continue
		}
		if err != nil || p.provisioner.cnpg == nil || !ownership.IsControlledBy(p.provisioner.cnpg, p.cluster.UID) || p.provisioner.cnpg.Labels[ownership.RetainedLabel] != "" {
			t.Errorf("retained for %s: not adopted: err %v, %+v", tc.retainedFor, err, p.provisioner.cnpg)
		}
	}
}

func TestSnapshotClassReachesTheCluster(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	p := provisionerPass(t, cs, pgv1.ClusterSettings{Backup: &pgv1.BackupSpec{Schedule: "0 2 * * *", VolumeSnapshotClass: "csi-snap"}})
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	b := p.provisioner.cnpg.Spec.Backup
	if b == nil || b.VolumeSnapshot == nil || b.VolumeSnapshot.ClassName != "csi-snap" {
		t.Fatalf("backup = %+v", b)
	}
}

// The pass right after the one that changed the CNPG Cluster (woken by
// that change's own echo) does not trust CNPG's still-healthy status: it
// stays Configuring for the rest of configureRecheck; then it goes on.
func TestSpecAppliedHoldsBeforeTrustingCNPG(t *testing.T) {
	t.Parallel()
	p := provisionerPass(t, fake.NewClientset(), pgv1.ClusterSettings{})
	p.provisioner.cnpg = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"},
		Status: cnpgv1.ClusterStatus{Phase: "Cluster in healthy state", Instances: 1, ReadyInstances: 1}}
	applied := t0.Add(-2 * time.Second) // the pass runs at t0
	p.status.Conditions = []metav1.Condition{{Type: pgv1.ConditionProvisionerReady, Status: metav1.ConditionFalse,
		Reason: "SpecApplied", ObservedGeneration: p.cluster.Generation, LastTransitionTime: metav1.NewTime(applied)}}
	h := provisionerComponent{}.Observe(t.Context(), p, nil)
	if h.Reason != "SpecApplied" || h.Phase != pgv1.PhaseConfiguring || h.RequeueAfter != configureRecheck-2*time.Second {
		t.Fatalf("2 s after the apply: %+v, want SpecApplied held for the 3 s left", h)
	}
	if left := specAppliedHold(p, applied.Add(configureRecheck)); left > 0 {
		t.Errorf("hold at the end of configureRecheck: %v left", left)
	}
	p.status.Conditions[0].ObservedGeneration--
	if left := specAppliedHold(p, applied); left > 0 {
		t.Errorf("a SpecApplied of an earlier generation held the pass: %v", left)
	}
}
