package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefakecs "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// offPass is a pass of a cluster whose superuser access is off; secret is
// what the cache holds at <cluster>-superuser, cnpg the CNPG Cluster.
func offPass(t *testing.T, secret *corev1.Secret, cnpg *cnpgv1.Cluster) (*pass, *kubefakecs.Clientset) {
	t.Helper()
	p := testPass()
	kube := kubefake()
	if secret != nil {
		kube = kubefake(secret)
	}
	p.deps = &deps{kube: kube, recorder: discard{}, clock: testClock()}
	p.want = &desired{}
	p.obs = &observation{secret: secret, cnpg: cnpg}
	p.status.Resources = &pgv1.ClusterResources{SuperUserSecretRef: &pgv1.LocalObjectReference{Name: "shop-superuser"},
		MonitorSecretRef: &pgv1.LocalObjectReference{Name: "shop-monitor"}}
	return p, kube
}

func ourSuperuserSecret(p *pass) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser", Namespace: "ns", UID: "uid-secret",
		Labels: superuserLabels("shop"), OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.cluster, gvk)}},
		Data: map[string][]byte{"username": []byte("postgres"), "password": []byte("pw")}}
}

func writesOf(cs *kubefakecs.Clientset) []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range cs.Actions() {
		if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
			out = append(out, a)
		}
	}
	return out
}

// With access off no superuser Secret is created, the Secret contract is
// the decision itself, and status names no superuser Secret.
func TestSecretComponentCreatesNothingWithAccessOff(t *testing.T) {
	t.Parallel()
	p, kube := offPass(t, nil, nil)
	c := secretComponent{}
	err := c.Reconcile(t.Context(), p)
	h := c.Observe(t.Context(), p, err)
	if h.Phase != pgv1.PhaseReady || h.Reason != "SuperuserAccessOff" {
		t.Fatalf("health = %+v", h)
	}
	if w := writesOf(kube); len(w) != 0 {
		t.Errorf("wrote with access off: %v", w)
	}
	if p.contracts.Secret != nil || !p.contracts.has(contractSecret) {
		t.Errorf("contracts: Secret %v, has %v; want no Secret and the contract met", p.contracts.Secret, p.contracts.has(contractSecret))
	}
	if r := p.status.Resources; r.SuperUserSecretRef != nil || r.MonitorSecretRef == nil {
		t.Errorf("status.resources = %+v, want no superuser Secret and the monitor's kept", r)
	}
}

// Our generated Secret is kept while the CNPG Cluster still has access
// (CNPG may read it), then deleted with a UID precondition; a Secret that
// is not ours is never touched.
func TestSuperuserSecretRetiredOnceTheClusterIsOff(t *testing.T) {
	t.Parallel()
	p, kube := offPass(t, nil, nil)
	ours := ourSuperuserSecret(p)
	for _, c := range []struct {
		name    string
		cnpg    *cnpgv1.Cluster
		deleted bool
	}{
		{"CNPG Cluster still on", runningWith(p.cluster, ptr.To(true)), false},
		{"CNPG Cluster off", runningWith(p.cluster, ptr.To(false)), true},
		{"no CNPG Cluster", nil, true},
	} {
		p, kube = offPass(t, ours, c.cnpg)
		comp := secretComponent{}
		err := comp.Reconcile(t.Context(), p)
		h := comp.Observe(t.Context(), p, err)
		if err != nil || h.Phase != pgv1.PhaseReady {
			t.Fatalf("%s: err %v, health %+v", c.name, err, h)
		}
		w := writesOf(kube)
		if !c.deleted {
			if len(w) != 0 {
				t.Errorf("%s: wrote %v", c.name, w)
			}
			if want := `superuser access is off; superuser Secret "shop-superuser" is deleted once the CNPG Cluster no longer has superuser access`; h.Message != want {
				t.Errorf("%s: message %q", c.name, h.Message)
			}
			continue
		}
		if len(w) != 1 || w[0].GetVerb() != "delete" {
			t.Fatalf("%s: writes %v, want one delete", c.name, w)
		}
		opts := w[0].(k8stesting.DeleteActionImpl).DeleteOptions
		if opts.Preconditions == nil || opts.Preconditions.UID == nil || *opts.Preconditions.UID != ours.UID {
			t.Errorf("%s: delete without the UID precondition: %+v", c.name, opts)
		}
		if _, err := kube.CoreV1().Secrets("ns").Get(t.Context(), "shop-superuser", metav1.GetOptions{}); err == nil {
			t.Errorf("%s: Secret still there", c.name)
		}
	}

	foreign := ours.DeepCopy()
	foreign.OwnerReferences = nil
	p, kube = offPass(t, foreign, nil)
	if err := (secretComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if w := writesOf(kube); len(w) != 0 {
		t.Errorf("touched a Secret that is not ours: %v", w)
	}
}

// A rotation request with access off has nothing to rotate: it says so.
func TestRotationRequestWithAccessOff(t *testing.T) {
	t.Parallel()
	p, _ := offPass(t, nil, nil)
	p.cluster.Annotations = map[string]string{pgv1.RotatePasswordsAnnotation: "r1"}
	c := secretComponent{}
	c.Observe(t.Context(), p, c.Reconcile(t.Context(), p))
	expectCondition(t, p, pgv1.ConditionPasswordRotation, metav1.ConditionTrue, "NoSuperuserPassword",
		`request "r1": superuser access is off, so there is no superuser password to rotate`)
	if p.status.SuperuserPasswordRotation != nil {
		t.Errorf("superuserPasswordRotation = %+v", p.status.SuperuserPasswordRotation)
	}
}

// The provisioner turns access off on a CNPG Cluster an earlier setpoint
// turned on, and no longer names a superuser Secret.
func TestProvisionerTurnsSuperuserAccessOff(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	p := provisionerPass(t, cs, pgv1.ClusterSettings{})
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	on := p.appliedCNPG()
	if !hasSuperuserAccess(on) || on.Spec.SuperuserSecret == nil {
		t.Fatalf("access on: %+v", on.Spec)
	}

	p = provisionerPass(t, cs, pgv1.ClusterSettings{})
	p.want.Superuser, p.contracts.Secret, p.contracts.NoSuperuser = false, nil, true
	p.obs.cnpg = on
	if clusterMatches(on, p) {
		t.Fatal("a CNPG Cluster with access on matches a cluster that wants it off")
	}
	n := len(cs.Actions())
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	off := p.appliedCNPG()
	if len(cs.Actions()) != n+1 {
		t.Fatalf("turning off sent %d requests, want one apply", len(cs.Actions())-n)
	}
	// Access said off, false included, and the Secret's field gone.
	if d := ct.Sends(shopClusterApply(3, "2329690e03eb9f9a"))(cs.Actions()[n]); d != "" {
		t.Fatalf("apply turning access off: %s", d)
	}
	if !clusterMatches(off, p) {
		t.Error("the CNPG Cluster as applied does not match: every pass would apply again")
	}
	// A superuserSecret another field manager keeps is ignored by CNPG
	// while access is off: not drift.
	kept := off.DeepCopy()
	kept.Spec.SuperuserSecret = &cnpgv1.LocalObjectReference{Name: "theirs"}
	if !clusterMatches(kept, p) {
		t.Error("another manager's superuserSecret, access off, is drift")
	}
}

// Without a superuser the connection ConfigMap names none, and status
// keeps the monitor's Secret next to the ConfigMap.
func TestConnectionInfoWithoutSuperuser(t *testing.T) {
	t.Parallel()
	p := testPass()
	p.want = &desired{}
	p.obs = &observation{ca: []byte("ca")}
	p.contracts.NoSuperuser = true
	p.contracts.CNPGCluster = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{UID: "uid-cnpg"}}
	p.status.Resources = &pgv1.ClusterResources{MonitorSecretRef: &pgv1.LocalObjectReference{Name: "shop-monitor"},
		SuperUserSecretRef: &pgv1.LocalObjectReference{Name: "shop-superuser"}}
	d := connectionData(p)
	if _, ok := d["superuser-secret"]; ok {
		t.Errorf("ConfigMap names a superuser Secret: %v", d)
	}
	if _, ok := d["superuser-name"]; ok {
		t.Errorf("ConfigMap names a superuser: %v", d)
	}
	h := configMapComponent{}.Observe(t.Context(), p, nil)
	r := p.status.Resources
	if h.Phase != pgv1.PhaseReady || r.ConfigMapRef == nil || r.SuperUserSecretRef != nil || r.MonitorSecretRef == nil {
		t.Errorf("health %+v, resources %+v", h, r)
	}

	p.contracts.Secret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser"}}
	if d := connectionData(p); d["superuser-secret"] != "shop-superuser" || d["superuser-name"] != "postgres" {
		t.Errorf("with access on: %v", d)
	}
}
