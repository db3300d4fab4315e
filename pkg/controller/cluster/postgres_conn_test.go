package cluster

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// The facts and the role check of one pass share one connection attempt:
// the second caller gets the first one's answer, not a second attempt.
func TestPostgresConnTriedOncePerPass(t *testing.T) {
	t.Parallel()
	p := testPass()
	p.obs = &observation{}
	if _, _, err := p.postgresConn(t.Context()); !errors.Is(err, errNoLogin) {
		t.Fatalf("connected without a superuser Secret or monitor role: %v", err)
	}
	// Were it tried again, this would now reach the (nil) connector.
	p.contracts.Secret = &corev1.Secret{Data: map[string][]byte{"username": []byte("postgres"), "password": []byte("x")}}
	p.obs.ca = []byte("-----BEGIN CERTIFICATE-----")
	if _, _, err := p.postgresConn(t.Context()); !errors.Is(err, errNoLogin) {
		t.Errorf("second call: %v, want the first call's answer", err)
	}
	p.closeConn(t.Context()) // nothing opened: a no-op
}

// The pass logs in as the superuser while access is on (the pg_hba.conf
// check needs it), as the monitor while it is off and CNPG has applied
// the monitor role with its Secret's password, and not at all otherwise.
func TestLoginFollowsSuperuserAccess(t *testing.T) {
	t.Parallel()
	sec := newMonitorSecret(testPass())
	sec.ResourceVersion = "9"
	role := monitorRoleApplyAsObject(t, testPass())
	role.Generation, role.Status.ObservedGeneration, role.Status.Applied, role.Status.SecretResourceVersion = 1, 1, ptr.To(true), "9"

	p := testPass()
	p.obs = &observation{monitorSecret: sec, monitorRole: role}
	p.contracts.Secret = &corev1.Secret{Data: map[string][]byte{"username": []byte("postgres"), "password": []byte("su")}}
	if l, err := loginOf(p); err != nil || l.user != "postgres" || !l.superuser {
		t.Errorf("access on: %+v, %v; want the superuser", l, err)
	}
	p.contracts.Secret, p.contracts.NoSuperuser = nil, true
	if l, err := loginOf(p); err != nil || l.user != "setpoint_monitor" || l.superuser || l.password != string(sec.Data["password"]) {
		t.Errorf("access off, monitor applied: %+v, %v", l, err)
	}
	for name, mutate := range map[string]func(*pass){
		"no monitor Secret":          func(p *pass) { p.obs.monitorSecret = nil },
		"no DatabaseRole":            func(p *pass) { p.obs.monitorRole = nil },
		"password not yet applied":   func(p *pass) { p.obs.monitorRole.Status.SecretResourceVersion = "8" },
		"generation not yet seen":    func(p *pass) { p.obs.monitorRole.Generation = 2 },
		"CNPG could not apply it":    func(p *pass) { p.obs.monitorRole.Status.Applied = ptr.To(false) },
		"a DatabaseRole not ours":    func(p *pass) { p.obs.monitorRole.OwnerReferences = nil },
		"a Secret not ours":          func(p *pass) { p.obs.monitorSecret.OwnerReferences = nil },
		"a DatabaseRole not current": func(p *pass) { p.obs.monitorRole.Spec.InRoles = nil },
	} {
		q := testPass()
		q.obs = &observation{monitorSecret: sec.DeepCopy(), monitorRole: role.DeepCopy()}
		q.contracts.NoSuperuser = true
		mutate(q)
		if l, err := loginOf(q); !errors.Is(err, errNoLogin) {
			t.Errorf("%s: login %+v, %v; want errNoLogin", name, l, err)
		}
	}
}

// monitorRoleApplyAsObject is the DatabaseRole monitorRoleApply makes, as
// the API server would store it.
func monitorRoleApplyAsObject(t *testing.T, p *pass) *cnpgv1.DatabaseRole {
	t.Helper()
	cs := fake.NewClientset()
	out, err := cs.CNPGV1().DatabaseRoles("ns").Apply(t.Context(), monitorRoleApply(p), applyOpts)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
