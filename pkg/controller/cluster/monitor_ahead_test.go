package cluster

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
)

// While CNPG brings the Cluster up, the monitor's Secret and both
// DatabaseRoles are created ahead of the component's turn, with the
// fields the component would write.
func TestMonitorPreparedAhead(t *testing.T) {
	t.Parallel()
	p, kube, cs := monitorPass(t, nil)
	p.obs.certGroup = nil
	if err := (monitorComponent{}).Prepare(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	sec, err := kube.CoreV1().Secrets("ns").Get(t.Context(), "shop-monitor", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("monitor Secret: %v", err)
	}
	if d := ct.Diff(monitorSecret(), sec, randomPassword); d != "" {
		t.Errorf("monitor Secret as stored: %s", d)
	}
	role, err := cs.CNPGV1().DatabaseRoles("ns").Get(t.Context(), "shop.setpoint-monitor", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("monitor DatabaseRole: %v", err)
	}
	// Whole: our fields, and no retry mark.
	if d := ct.Diff(storedMonitorRole(), role); d != "" {
		t.Errorf("monitor DatabaseRole as stored: %s", d)
	}
	if !monitorRoleCurrent(role, p) {
		t.Errorf("the monitor role as applied is not current: the component would apply it again")
	}
	group, err := cs.CNPGV1().DatabaseRoles("ns").Get(t.Context(), "shop.setpoint-cert-auth", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("certificate group DatabaseRole: %v", err)
	}
	if d := ct.Diff(storedCertAuthRole(), group); d != "" {
		t.Errorf("certificate group DatabaseRole as stored: %s", d)
	}
}

// Nothing is prepared when the role exists already, or when claiming it
// would ask Postgres (the superuser is on, and Postgres is not up); what
// is in the way is no error of the pass and writes nothing: the component
// reports it in its turn.
func TestMonitorNotPreparedAhead(t *testing.T) {
	t.Parallel()
	theirs := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-monitor", Namespace: "ns"}}
	for _, c := range []struct {
		name  string
		kube  []runtime.Object
		setup func(p *pass)
	}{
		{"superuser on", nil, func(p *pass) {
			p.contracts.NoSuperuser, p.contracts.Secret = false, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser"}}
		}},
		{"the role exists", nil, func(p *pass) { _, p.obs.monitorRole = monitorObjects(t) }},
		{"a foreign Secret of its name", []runtime.Object{theirs}, func(*pass) {}},
		{"the role in managed.roles", nil, func(p *pass) {
			p.contracts.CNPGCluster.Spec.Managed = &cnpgv1.ManagedConfiguration{Roles: []cnpgv1.RoleConfiguration{{Name: "setpoint_monitor"}}}
		}},
	} {
		p, _, cs := monitorPass(t, c.kube)
		c.setup(p)
		if err := (monitorComponent{}).Prepare(t.Context(), p); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
		for _, a := range cs.Actions() {
			if a.GetVerb() != "get" {
				t.Errorf("%s: %s %s", c.name, a.GetVerb(), a.GetResource().Resource)
			}
		}
	}
}

// monitorObjects are the monitor's Secret and DatabaseRole as a first
// pass of the component makes them.
func monitorObjects(t *testing.T) (*corev1.Secret, *cnpgv1.DatabaseRole) {
	t.Helper()
	p, kube, cs := monitorPass(t, nil)
	runMonitor(p)
	sec, err := kube.CoreV1().Secrets("ns").Get(t.Context(), "shop-monitor", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	role, err := cs.CNPGV1().DatabaseRoles("ns").Get(t.Context(), "shop.setpoint-monitor", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return sec, role
}

// A role CNPG refused before the Cluster was healthy (its instance manager
// tried before Postgres accepted connections) is asked once more when the
// Cluster is healthy; not while it is not, and not again once asked since.
func TestMonitorTriedBeforeHealthyIsRetried(t *testing.T) {
	t.Parallel()
	healthySince := t0.Add(-10 * time.Second)
	cl := &cnpgv1.Cluster{Status: cnpgv1.ClusterStatus{Conditions: []metav1.Condition{{
		Type: cnpgv1.ConditionClusterReady, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(healthySince)}}}}
	refused := &cnpgv1.DatabaseRole{Status: cnpgv1.DatabaseRoleStatus{Applied: ptr.To(false), Message: "connection refused"}}
	marked := func(at time.Time) *cnpgv1.DatabaseRole {
		r := refused.DeepCopy()
		r.Annotations = cnpgverdict.RetryMark(at)
		return r
	}
	notHealthy := cl.DeepCopy()
	notHealthy.Status.Conditions[0].Status = metav1.ConditionFalse
	applied := refused.DeepCopy()
	applied.Status.Applied = ptr.To(true)
	for _, c := range []struct {
		name string
		role *cnpgv1.DatabaseRole
		cl   *cnpgv1.Cluster
		want bool
	}{
		{"refused, never asked, healthy since", refused, cl, true},
		{"asked before it became healthy", marked(healthySince.Add(-time.Second)), cl, true},
		{"asked since it became healthy", marked(healthySince.Add(time.Second)), cl, false},
		{"not healthy yet", refused, notHealthy, false},
		{"no Ready condition", refused, &cnpgv1.Cluster{}, false},
		{"applied", applied, cl, false},
		{"not yet tried", &cnpgv1.DatabaseRole{}, cl, false},
	} {
		if got := triedBeforeHealthy(c.role, c.cl, t0); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
	}
}

// In the component's turn, such a role is re-applied with the retry mark
// beside our fields.
func TestMonitorRetriedOnceHealthy(t *testing.T) {
	t.Parallel()
	sec, role := monitorObjects(t)
	role.Status = cnpgv1.DatabaseRoleStatus{Applied: ptr.To(false), Message: "failed to connect to `host=/controller/run`: dial error"}

	p, _, cs := monitorPass(t, []runtime.Object{sec}, role)
	p.contracts.CNPGCluster.Status.Conditions = []metav1.Condition{{
		Type: cnpgv1.ConditionClusterReady, Status: metav1.ConditionTrue, LastTransitionTime: metav1.NewTime(t0.Add(-time.Second))}}
	p.obs.monitorSecret, p.obs.monitorRole = sec, role
	if h := runMonitor(p); h.Reason != pgv1.ReasonMonitorRoleNotApplied {
		t.Errorf("health = %+v", h)
	}
	got, err := cs.CNPGV1().DatabaseRoles("ns").Get(t.Context(), "shop.setpoint-monitor", metav1.GetOptions{})
	if err != nil || got.Annotations[cnpgverdict.RetryAnnotation] != t0.UTC().Format(time.RFC3339Nano) {
		t.Errorf("not asked again: %v, %v", got.Annotations, err)
	}
}
