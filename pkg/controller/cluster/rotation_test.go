package cluster

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefakecs "k8s.io/client-go/kubernetes/fake"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/credentials"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

func superuserPass(t *testing.T, request string) (*pass, *corev1.Secret) {
	t.Helper()
	p := testPass()
	if request != "" {
		p.cluster.Annotations = map[string]string{pgv1.RotatePasswordsAnnotation: request}
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser", Namespace: "ns", Labels: superuserLabels("shop"), ResourceVersion: "7",
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.cluster, gvk)}},
		Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte("postgres"), "password": []byte("old")},
	}
	p.deps = &deps{kube: kubefake(s), recorder: discard{}, clock: testClock()}
	p.want = &desired{Superuser: true}
	p.obs = &observation{secret: s}
	return p, s
}

// A request rotates the generated superuser password once, with the
// request id in the same write; the status and condition follow the
// Secret.
func TestSuperuserRotationOnRequest(t *testing.T) {
	t.Parallel()
	p, s := superuserPass(t, "r1")
	c := secretComponent{}
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	h := c.Observe(t.Context(), p, nil)
	got, _ := p.deps.kube.CoreV1().Secrets("ns").Get(t.Context(), "shop-superuser", metav1.GetOptions{})
	// The Secret as it was, with a new password, the request id and the
	// (test) clock's time.
	want := s.DeepCopy()
	want.ResourceVersion, want.Data["password"] = "", nil
	want.Annotations = map[string]string{credentials.RotatedForAnnotation: "r1", credentials.RotatedAtAnnotation: t0.Format(time.RFC3339)}
	if d := ct.Diff(want, got, ct.Generated("data", "password")); h.Phase != pgv1.PhaseReady || d != "" || string(got.Data["password"]) == "old" {
		t.Fatalf("health %+v, password rotated %t, Secret as stored: %s", h, string(got.Data["password"]) != "old", d)
	}
	if r := p.status.SuperuserPasswordRotation; r == nil || r.Request != "r1" {
		t.Errorf("status = %+v", r)
	}
	expectCondition(t, p, pgv1.ConditionPasswordRotation, metav1.ConditionTrue, "Rotated", `request "r1": superuser password rotated`)

	// The next pass starts from the rotated Secret: nothing is written.
	p2, _ := superuserPass(t, "r1")
	p2.obs.secret = got
	p2.deps.kube = kubefake(got)
	if err := c.Reconcile(t.Context(), p2); err != nil {
		t.Fatal(err)
	}
	for _, a := range p2.deps.kube.(*kubefakecs.Clientset).Actions() {
		if a.GetVerb() != "get" {
			t.Errorf("a done request wrote %s", a.GetVerb())
		}
	}
}

// Without a request nothing is written and status carries nothing new;
// an external superuser Secret is never written and the request says so.
func TestSuperuserRotationNoRequestAndExternal(t *testing.T) {
	t.Parallel()
	p, _ := superuserPass(t, "")
	c := secretComponent{}
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	c.Observe(t.Context(), p, nil)
	for _, a := range p.deps.kube.(*kubefakecs.Clientset).Actions() {
		if a.GetVerb() != "get" {
			t.Errorf("no request, yet %s", a.GetVerb())
		}
	}
	if p.status.SuperuserPasswordRotation != nil || len(p.status.Conditions) != 0 {
		t.Errorf("status = %+v", p.status)
	}

	p, _ = superuserPass(t, "r1")
	ext := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "vault-su", Namespace: "ns"},
		Data: map[string][]byte{"username": []byte("postgres"), "password": []byte("mine")}}
	p.want.ExternalSuperSec = "vault-su"
	p.obs.external = ext
	p.deps.kube = kubefake(ext)
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	c.Observe(t.Context(), p, nil)
	if n := len(p.deps.kube.(*kubefakecs.Clientset).Actions()); n != 0 {
		t.Errorf("%d requests for an external Secret", n)
	}
	expectCondition(t, p, pgv1.ConditionPasswordRotation, metav1.ConditionFalse, "ExternalSecretNotRotated",
		`request "r1": the superuser Secret "vault-su" is external; setpoint never writes it, rotate it yourself`)
}
