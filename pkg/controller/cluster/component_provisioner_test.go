package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
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
	p.cluster, p.want, p.deps = pc, want, &deps{pg: cs}
	p.obs = &observation{}
	p.contracts.Secret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser"}}
	return p
}

func TestProvisionerAppliesOnlyOnChangeAndRepairsDrift(t *testing.T) {
	cs := fake.NewClientset()
	c := provisionerComponent{}
	p := provisionerPass(t, cs, pgv1.ClusterSettings{})
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	applied := p.obs.cnpg
	if applied == nil || applied.Spec.Instances != 3 || !*applied.Spec.EnableSuperuserAccess ||
		applied.Spec.PostgresConfiguration.Parameters["max_connections"] != "200" {
		t.Fatalf("applied CNPG Cluster = %+v", applied)
	}
	if applied.Annotations[specHashAnnotation] == "" {
		t.Fatal("no spec hash recorded")
	}
	if applied.Spec.Backup != nil {
		t.Fatalf("backup section without a snapshot class: %+v", applied.Spec.Backup)
	}

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
	if len(cs.Actions()) != n+1 || p.obs.cnpg.Spec.Instances != 3 {
		t.Fatalf("drift not repaired: instances %d, actions %d", p.obs.cnpg.Spec.Instances, len(cs.Actions())-n)
	}

	// A field CNPG defaulted elsewhere is not drift.
	defaulted := p.obs.cnpg.DeepCopy()
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
	if h := c.Observe(t.Context(), p, nil); h.reason != "SpecApplied" {
		t.Fatalf("health after changing a live cluster = %+v, want SpecApplied", h)
	}
}

func TestSecretIsNeverRegenerated(t *testing.T) {
	existing := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser", Namespace: "ns", Labels: superuserLabels("shop")},
		Data:       map[string][]byte{"username": []byte("postgres"), "password": []byte("kept")},
	}
	kube := kubefake(existing)
	p := testPass()
	p.deps = &deps{kube: kube, recorder: discard{}}
	p.want = &desired{}
	p.obs = &observation{} // a stale cache: the Secret exists but we did not see it
	c := secretComponent{}
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if string(p.obs.secret.Data["password"]) != "kept" {
		t.Fatal("a stale cache led to a new password")
	}
}

func TestSnapshotClassReachesTheCluster(t *testing.T) {
	cs := fake.NewClientset()
	p := provisionerPass(t, cs, pgv1.ClusterSettings{Backup: &pgv1.BackupSpec{Schedule: "0 2 * * *", VolumeSnapshotClass: "csi-snap"}})
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	b := p.obs.cnpg.Spec.Backup
	if b == nil || b.VolumeSnapshot == nil || b.VolumeSnapshot.ClassName != "csi-snap" {
		t.Fatalf("backup = %+v", b)
	}
}
