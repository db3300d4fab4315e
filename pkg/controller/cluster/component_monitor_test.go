package cluster

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kubefakecs "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// monitorPass is a pass at the monitor component: the CNPG Cluster is
// published, the snapshot holds what the tests put there.
func monitorPass(t *testing.T, kubeObjs []runtime.Object, pgObjs ...runtime.Object) (*pass, *kubefakecs.Clientset, *fake.Clientset) {
	t.Helper()
	p := testPass()
	kube, cs := kubefakecs.NewClientset(kubeObjs...), fake.NewClientset(pgObjs...)
	p.deps = &deps{kube: kube, pg: cs, recorder: discard{}, clock: testClock(),
		roleComment: func(context.Context, *pass, string) (*string, bool, error) {
			t.Fatal("Postgres asked about the role without the superuser")
			return nil, false, nil
		}}
	p.want = &desired{}
	p.obs = &observation{}
	p.contracts.NoSuperuser = true
	p.contracts.CNPGCluster = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}}
	// The certificate group, which the component keeps too, is in place:
	// these tests are about the monitor (monitor_certgroup_test.go about the group).
	p.obs.certGroup = certGroupAsApplied(p)
	return p, kube, cs
}

func runMonitor(p *pass) health {
	c := monitorComponent{}
	return c.Observe(context.Background(), p, c.Reconcile(context.Background(), p))
}

// appliedBy is role as CNPG reports it once applied with secret's password.
func appliedBy(role *cnpgv1.DatabaseRole, secret *corev1.Secret) *cnpgv1.DatabaseRole {
	r := role.DeepCopy()
	r.Generation = 2
	r.Status = cnpgv1.DatabaseRoleStatus{ObservedGeneration: 2, Applied: ptr.To(true), SecretResourceVersion: secret.ResourceVersion}
	return r
}

// The first pass creates the Secret and the DatabaseRole, with only our
// fields, and waits; once CNPG reports the role applied with the Secret's
// password the component is Ready, publishes the Secret, and writes
// nothing more.
func TestMonitorRoleCreatedThenPublished(t *testing.T) {
	t.Parallel()
	p, kube, cs := monitorPass(t, nil)
	h := runMonitor(p)
	if h.Phase != pgv1.PhaseProvisioning || h.Reason != "MonitorRolePending" {
		t.Fatalf("first pass: %+v", h)
	}
	if r := p.status.Resources; r != nil && r.MonitorSecretRef != nil {
		t.Fatalf("published before CNPG applied the role: %+v", r)
	}
	sec, err := kube.CoreV1().Secrets("ns").Get(t.Context(), "shop-monitor", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := ct.Diff(monitorSecret(), sec, randomPassword); d != "" {
		t.Errorf("monitor Secret as stored: %s", d)
	}
	if n := len(sec.Data["password"]); n < 16 {
		t.Errorf("monitor password of %d bytes", n)
	}
	role, err := cs.CNPGV1().DatabaseRoles("ns").Get(t.Context(), "shop.setpoint-monitor", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := ct.Diff(storedMonitorRole(), role); d != "" {
		t.Errorf("DatabaseRole as stored: %s", d)
	}

	// CNPG applied it.
	sec.ResourceVersion = "41"
	p, kube, cs = monitorPass(t, []runtime.Object{sec})
	p.obs.monitorSecret, p.obs.monitorRole = sec, appliedBy(role, sec)
	h = runMonitor(p)
	if h.Phase != pgv1.PhaseReady || h.Reason != "MonitorRoleApplied" {
		t.Fatalf("applied: %+v", h)
	}
	if r := p.status.Resources; r == nil || r.MonitorSecretRef == nil || r.MonitorSecretRef.Name != "shop-monitor" {
		t.Errorf("status.resources = %+v, want monitorSecretRef shop-monitor", r)
	}
	if w := append(writesOf(kube), cs.Actions()...); len(w) != 0 {
		t.Errorf("a converged pass wrote: %v", w)
	}
	// The snapshot makes it the pass's login now.
	if l, err := loginOf(p); err != nil || l.user != "setpoint_monitor" || l.superuser || l.password != string(sec.Data["password"]) {
		t.Errorf("login = %+v, %v", l, err)
	}
}

// While CNPG has not caught up — a new Secret version, a failed apply —
// the component waits, says why, and a Secret once published stays.
func TestMonitorRoleWaitsForCNPG(t *testing.T) {
	t.Parallel()
	sec := newMonitorSecret(testPass())
	sec.ResourceVersion = "42"
	role := appliedBy(&cnpgv1.DatabaseRole{}, sec)
	p0 := testPass()
	role.ObjectMeta = metav1.ObjectMeta{Name: "shop.setpoint-monitor", Namespace: "ns", Generation: 2,
		Labels: ownership.ManagedLabels(ownership.ClusterLabel, "shop"), OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p0.cluster, gvk)}}
	p0.want, p0.obs = &desired{}, &observation{}
	role.Spec = cnpgv1.DatabaseRoleSpec{Cluster: cnpgv1.LocalObjectReference{Name: "shop"}, Name: "setpoint_monitor", Login: true,
		InRoles: []string{"pg_monitor"}, PasswordSecret: &cnpgv1.LocalObjectReference{Name: "shop-monitor"},
		Comment: "managed by setpoint for PostgresCluster ns/shop", DatabaseRoleReclaimPolicy: "delete"}
	if !monitorRoleCurrent(role, p0) {
		t.Fatal("the test's DatabaseRole is not current")
	}

	stale := role.DeepCopy()
	stale.Status.SecretResourceVersion = "40"
	failedApply := role.DeepCopy()
	failedApply.Status.Applied, failedApply.Status.Message = ptr.To(false), `"setpoint_monitor" is already managed by object "other"`
	// CNPG records observedGeneration only on success: a first failure
	// has none.
	failedApply.Status.ObservedGeneration = 0
	for _, c := range []struct {
		name, reason, message string
		role                  *cnpgv1.DatabaseRole
	}{
		{"a new password not yet set", "MonitorRolePending", `role setpoint_monitor not yet applied by CloudNativePG (DatabaseRole "shop.setpoint-monitor")`, stale},
		{"CNPG refused it", "MonitorRoleNotApplied", `CloudNativePG could not apply role setpoint_monitor (DatabaseRole "shop.setpoint-monitor"): "setpoint_monitor" is already managed by object "other"`, failedApply},
	} {
		p, _, cs := monitorPass(t, []runtime.Object{sec})
		p.obs.monitorSecret, p.obs.monitorRole = sec, c.role
		p.status.Resources = &pgv1.ClusterResources{MonitorSecretRef: &pgv1.LocalObjectReference{Name: "shop-monitor"}}
		h := runMonitor(p)
		if h.Phase != pgv1.PhaseProvisioning || h.Reason != c.reason || h.Message != c.message {
			t.Errorf("%s: %+v", c.name, h)
		}
		if p.status.Resources.MonitorSecretRef == nil {
			t.Errorf("%s: a published Secret was taken back while CNPG catches up", c.name)
		}
		if len(cs.Actions()) != 0 {
			t.Errorf("%s: applied a current DatabaseRole: %v", c.name, cs.Actions())
		}
		if usableMonitor(p) != nil {
			t.Errorf("%s: the snapshot offers the monitor as a login", c.name)
		}
	}
}

// Before the first write of the DatabaseRole: a same-named one that is
// not ours, another DatabaseRole of the role, and an entry in managed.roles
// are each refused, and nothing is applied.
func TestMonitorRoleRefusedWhenSomeoneElseHasIt(t *testing.T) {
	t.Parallel()
	foreign := &cnpgv1.DatabaseRole{ObjectMeta: metav1.ObjectMeta{Name: "shop.setpoint-monitor", Namespace: "ns"},
		Spec: cnpgv1.DatabaseRoleSpec{Cluster: cnpgv1.LocalObjectReference{Name: "shop"}, Name: "setpoint_monitor"}}
	rival := foreign.DeepCopy()
	rival.Name = "my-monitor"
	for _, c := range []struct {
		name, reason, says string
		setup              func(p *pass)
	}{
		{"a DatabaseRole of that name that is not ours", "MonitorRoleConflict", `DatabaseRole "shop.setpoint-monitor" exists and was not created by setpoint`,
			func(p *pass) { p.obs.monitorRole = foreign }},
		{"another DatabaseRole of the role", "MonitorRoleConflict", `role setpoint_monitor is managed by DatabaseRole "my-monitor"`,
			func(p *pass) { p.obs.monitorRivals = []*cnpgv1.DatabaseRole{rival} }},
		{"the role in managed.roles", "MonitorRoleConflict", `role setpoint_monitor is listed in CNPG Cluster "shop"'s spec.managed.roles`,
			func(p *pass) {
				p.contracts.CNPGCluster.Spec.Managed = &cnpgv1.ManagedConfiguration{Roles: []cnpgv1.RoleConfiguration{{Name: "setpoint_monitor"}}}
			}},
	} {
		p, _, cs := monitorPass(t, nil)
		p.status.Resources = &pgv1.ClusterResources{MonitorSecretRef: &pgv1.LocalObjectReference{Name: "shop-monitor"}}
		c.setup(p)
		h := runMonitor(p)
		if h.Phase != pgv1.PhaseFailed || h.Reason != c.reason || !strings.Contains(h.Message, c.says) || h.RequeueAfter == 0 {
			t.Errorf("%s: %+v", c.name, h)
		}
		for _, a := range cs.Actions() {
			if a.GetVerb() != "get" {
				t.Errorf("%s: %s a DatabaseRole", c.name, a.GetVerb())
			}
		}
		if p.status.Resources.MonitorSecretRef != nil {
			t.Errorf("%s: a refused role stays published", c.name)
		}
	}

	// A Secret of the monitor's name that is not ours, which the
	// label-selected cache cannot see.
	theirs := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-monitor", Namespace: "ns"}}
	p, kube, cs := monitorPass(t, []runtime.Object{theirs})
	h := runMonitor(p)
	if h.Phase != pgv1.PhaseFailed || h.Reason != "MonitorSecretConflict" || !strings.Contains(h.Message, `Secret "shop-monitor" exists and was not created by setpoint`) {
		t.Errorf("foreign Secret: %+v", h)
	}
	if got, _ := kube.CoreV1().Secrets("ns").Get(t.Context(), "shop-monitor", metav1.GetOptions{}); ct.Diff(theirs, got) != "" {
		t.Errorf("foreign Secret not left whole as it was: %s", ct.Diff(theirs, got))
	}
	if len(cs.Actions()) != 0 {
		t.Errorf("DatabaseRole written next to a foreign Secret: %v", cs.Actions())
	}
}

// With the superuser available, Postgres is asked before the first write:
// a setpoint_monitor role without setpoint's marker is refused (CNPG would
// take it over); absent, with our marker, or with another cluster's (the
// source of a restore) it is applied; a failed lookup is a wait.
func TestMonitorRoleExistingInPostgres(t *testing.T) {
	t.Parallel()
	theirs, ours := "made by hand", "managed by setpoint for PostgresCluster ns/shop"
	other := "managed by setpoint for PostgresCluster ns/other"
	for _, c := range []struct {
		name    string
		comment *string
		exists  bool
		err     error
		reason  string
	}{
		{"absent", nil, false, nil, "MonitorRolePending"},
		{"ours", &ours, true, nil, "MonitorRolePending"},
		{"no comment", nil, true, nil, "MonitorRoleExists"},
		{"someone's comment", &theirs, true, nil, "MonitorRoleExists"},
		{"a restored source cluster's marker", &other, true, nil, "MonitorRolePending"},
		{"a database's marker", ptr.To("managed by setpoint for PostgresDatabase ns/shop"), true, nil, "MonitorRoleExists"},
		{"lookup failed", nil, false, errors.New("connection refused"), "MonitorRoleUnverified"},
	} {
		p, _, cs := monitorPass(t, nil)
		p.contracts.NoSuperuser, p.contracts.Secret = false, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser"}}
		asked := 0
		p.deps.roleComment = func(_ context.Context, _ *pass, role string) (*string, bool, error) {
			asked++
			if role != "setpoint_monitor" {
				t.Errorf("asked about role %q", role)
			}
			return c.comment, c.exists, c.err
		}
		h := runMonitor(p)
		if h.Reason != c.reason || asked != 1 {
			t.Errorf("%s: %+v after %d lookups", c.name, h, asked)
		}
		applied := slices.ContainsFunc(cs.Actions(), func(a k8stesting.Action) bool { return a.GetVerb() == "patch" || a.GetVerb() == "create" })
		if applied != (c.reason == "MonitorRolePending") {
			t.Errorf("%s: DatabaseRole applied = %v", c.name, applied)
		}
		if c.reason == "MonitorRoleExists" && (!strings.Contains(h.Message, "CloudNativePG would take it over") || h.Phase != pgv1.PhaseFailed) {
			t.Errorf("%s: %+v", c.name, h)
		}
	}
}

// The monitor's DatabaseRole failed because CNPG's instance manager may
// not read its Secret yet (real CNPG's RBAC race): it is asked again at
// once, with the retry annotation beside our fields, and the component
// rechecks at cnpgverdict.RetryPace; within the pace nothing is written.
func TestMonitorRoleSecretRaceIsRetried(t *testing.T) {
	t.Parallel()
	p, kube, cs := monitorPass(t, nil)
	runMonitor(p)
	sec, _ := kube.CoreV1().Secrets("ns").Get(t.Context(), "shop-monitor", metav1.GetOptions{})
	role, _ := cs.CNPGV1().DatabaseRoles("ns").Get(t.Context(), "shop.setpoint-monitor", metav1.GetOptions{})
	role.Status = cnpgv1.DatabaseRoleStatus{Applied: ptr.To(false),
		Message: `secrets "shop-monitor" is forbidden: User "system:serviceaccount:ns:shop" cannot get resource "secrets" in API group "" in the namespace "ns"`}

	p, _, cs = monitorPass(t, []runtime.Object{sec}, role)
	clock := p.deps.clock
	p.obs.monitorSecret, p.obs.monitorRole = sec, role
	h := runMonitor(p)
	if h.Phase != pgv1.PhaseProvisioning || h.Reason != pgv1.ReasonMonitorRolePending || h.RequeueAfter != cnpgverdict.RetryPace ||
		!strings.Contains(h.Message, `may not read Secret "shop-monitor" yet`) {
		t.Fatalf("health = %+v", h)
	}
	retried, err := cs.CNPGV1().DatabaseRoles("ns").Get(t.Context(), "shop.setpoint-monitor", metav1.GetOptions{})
	if err != nil || retried.Annotations[cnpgverdict.RetryAnnotation] != clock.Now().UTC().Format(time.RFC3339Nano) {
		t.Fatalf("not retried: %v %v", retried.Annotations, err)
	}
	if retried.Spec.PasswordSecret == nil || retried.Spec.Name != "setpoint_monitor" {
		t.Errorf("the retry changed our fields: %+v", retried.Spec)
	}

	// CNPG failed again at once: within the pace, no write.
	again := retried.DeepCopy()
	again.Status = role.Status
	p, _, cs = monitorPass(t, []runtime.Object{sec}, again)
	p.obs.monitorSecret, p.obs.monitorRole = sec, again
	if h := runMonitor(p); h.RequeueAfter != cnpgverdict.RetryPace {
		t.Fatalf("within the pace: %+v", h)
	}
	if w := cs.Actions(); len(w) != 0 {
		t.Errorf("retried within the pace: %v", w)
	}
}

// On a replica (its topology names a peer primary) the monitor asks
// Postgres nothing — nothing of this site logs in there — writes no
// DatabaseRole, publishes no Secret, and is Ready with
// MonitorRoleReplayed, so the components after it go on.
func TestMonitorOnAReplicaAsksPostgresNothing(t *testing.T) {
	t.Parallel()
	p, _, cs := monitorPass(t, nil)
	p.contracts.NoSuperuser, p.contracts.Secret = false, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser"}}
	p.cluster.Spec.Topology = &pgv1.TopologySpec{Primary: "shop-a", Peers: []pgv1.TopologyPeer{{Name: "shop-a"}}}
	p.status.Resources = &pgv1.ClusterResources{MonitorSecretRef: &pgv1.LocalObjectReference{Name: "shop-monitor"}}
	p.deps.roleComment = func(context.Context, *pass, string) (*string, bool, error) {
		t.Fatal("Postgres asked about the monitor role on a replica")
		return nil, false, nil
	}
	h := runMonitor(p)
	if h.Phase != pgv1.PhaseReady || h.Reason != pgv1.ReasonMonitorRoleReplayed {
		t.Fatalf("health %+v, want Ready %s", h, pgv1.ReasonMonitorRoleReplayed)
	}
	if slices.ContainsFunc(cs.Actions(), func(a k8stesting.Action) bool { return a.GetVerb() == "patch" || a.GetVerb() == "create" }) {
		t.Errorf("DatabaseRole written on a replica: %v", cs.Actions())
	}
	if r := p.status.Resources; r.MonitorSecretRef != nil {
		t.Errorf("monitor Secret still published on a replica: %+v", r)
	}
}
