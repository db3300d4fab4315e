package cluster

import (
	"context"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	corev1 "k8s.io/api/core/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// certGroupAsApplied is the group's DatabaseRole as the API server keeps
// it once applied: ours, current, applied by CNPG.
func certGroupAsApplied(p *pass) *cnpgv1.DatabaseRole {
	name := p.cluster.Name
	return &cnpgv1.DatabaseRole{
		ObjectMeta: metav1.ObjectMeta{Name: naming.CertAuthGroupObject(name), Namespace: p.cluster.Namespace, Generation: 1,
			Labels:          ownership.ManagedLabels(ownership.ClusterLabel, name),
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.cluster, gvk)}},
		Spec: cnpgv1.DatabaseRoleSpec{Cluster: cnpgv1.LocalObjectReference{Name: name}, Name: naming.CertAuthGroup,
			Comment: ownership.ClusterMarker(p.cluster.Namespace, name), DatabaseRoleReclaimPolicy: cnpgv1.DatabaseRoleReclaimRetain},
		Status: cnpgv1.DatabaseRoleStatus{ObservedGeneration: 1, Applied: ptr.To(true)},
	}
}

// currentMonitorRole is the monitor's DatabaseRole as monitorRoleApply
// writes it.
func currentMonitorRole(p *pass) *cnpgv1.DatabaseRole {
	name := p.cluster.Name
	return &cnpgv1.DatabaseRole{
		ObjectMeta: metav1.ObjectMeta{Name: naming.MonitorRoleObject(name), Namespace: p.cluster.Namespace,
			Labels:          ownership.ManagedLabels(ownership.ClusterLabel, name),
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.cluster, gvk)}},
		Spec: cnpgv1.DatabaseRoleSpec{Cluster: cnpgv1.LocalObjectReference{Name: name}, Name: naming.MonitorRole, Login: true,
			InRoles: []string{monitorGroup}, PasswordSecret: &cnpgv1.LocalObjectReference{Name: naming.MonitorSecret(name)},
			Comment: ownership.ClusterMarker(p.cluster.Namespace, name), DatabaseRoleReclaimPolicy: cnpgv1.DatabaseRoleReclaimDelete},
	}
}

// Every cluster gets the certificate group: a DatabaseRole with only our
// fields — no login, no password, our marker, reclaim retain — and the
// two fixed pg_hba lines come before the class's and the cluster's.
func TestCertGroupCreatedWithOurFieldsOnly(t *testing.T) {
	t.Parallel()
	p, _, cs := monitorPass(t, nil)
	p.obs.certGroup = nil
	h := runMonitor(p)
	if h.Phase == pgv1.PhaseFailed {
		t.Fatalf("first pass: %+v", h)
	}
	role, err := cs.CNPGV1().DatabaseRoles("ns").Get(t.Context(), "shop.setpoint-cert-auth", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d := ct.Diff(storedCertAuthRole(), role); d != "" {
		t.Errorf("DatabaseRole as stored: %s", d)
	}
	if !certGroupCurrent(role, p) {
		t.Errorf("the group as applied is not current: a converged pass would apply it again")
	}

	w := &desired{Settings: pgv1.ClusterSettings{PgHBA: []string{"host all all 10.0.0.0/8 scram-sha-256"}}}
	want := []string{"hostssl all +setpoint_cert_auth all cert", "hostnossl all +setpoint_cert_auth all reject", "host all all 10.0.0.0/8 scram-sha-256"}
	if got := hbaLines(w); !slices.Equal(got, want) {
		t.Errorf("pg_hba = %q, want %q", got, want)
	}
}

// A group that is someone else's — a same-named DatabaseRole not ours,
// another DatabaseRole of the role, an entry of managed.roles, a role
// Postgres has without our marker — is never written: Failed, naming it,
// while the monitor stays published.
func TestCertGroupConflictsRefused(t *testing.T) {
	t.Parallel()
	theirs := "made by hand"
	for _, c := range []struct {
		name    string
		prepare func(p *pass)
		reason  string
	}{
		{"foreign object", func(p *pass) {
			r := certGroupAsApplied(p)
			r.OwnerReferences = nil
			p.obs.certGroup = r
		}, "CertAuthGroupConflict"},
		{"rival object", func(p *pass) {
			p.obs.certGroup = nil
			p.obs.certGroupRivals = []*cnpgv1.DatabaseRole{{ObjectMeta: metav1.ObjectMeta{Name: "hand-made"}}}
		}, "CertAuthGroupConflict"},
		{"managed.roles", func(p *pass) {
			p.obs.certGroup = nil
			p.contracts.CNPGCluster.Spec.Managed = &cnpgv1.ManagedConfiguration{Roles: []cnpgv1.RoleConfiguration{{Name: "setpoint_cert_auth"}}}
		}, "CertAuthGroupConflict"},
		{"in Postgres", func(p *pass) {
			p.obs.certGroup = nil
			p.contracts.NoSuperuser, p.contracts.Secret = false, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser"}}
			p.deps.roleComment = func(_ context.Context, _ *pass, role string) (*string, bool, error) {
				if role != "setpoint_cert_auth" {
					t.Errorf("asked about role %q", role)
				}
				return &theirs, true, nil
			}
		}, "CertAuthGroupExists"},
	} {
		sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-monitor", Namespace: "ns", ResourceVersion: "41"},
			Data: map[string][]byte{"username": []byte("setpoint_monitor"), "password": []byte("pw")}}
		p, _, cs := monitorPass(t, []runtime.Object{sec})
		sec.OwnerReferences = []metav1.OwnerReference{ownership.OwnerRef(p.cluster, gvk)}
		p.obs.monitorSecret = sec
		p.obs.monitorRole = appliedBy(currentMonitorRole(p), sec)
		c.prepare(p)
		h := runMonitor(p)
		if h.Phase != pgv1.PhaseFailed || h.Reason != c.reason || !strings.Contains(h.Message, "setpoint leaves it untouched") {
			t.Errorf("%s: %+v", c.name, h)
		}
		for _, a := range cs.Actions() {
			if a.GetVerb() != "get" && a.GetVerb() != "list" && a.GetVerb() != "watch" {
				t.Errorf("%s: wrote %v", c.name, a)
			}
		}
		if r := p.status.Resources; r == nil || r.MonitorSecretRef == nil {
			t.Errorf("%s: monitor unpublished by the group's conflict: %+v", c.name, r)
		}
	}
}
