package cluster

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// runningWith is a CNPG Cluster controlled by pc with the given
// enableSuperuserAccess (nil: not set, CNPG's default false).
func runningWith(pc *pgv1.PostgresCluster, access *bool) *cnpgv1.Cluster {
	return &cnpgv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: pc.Name, Namespace: pc.Namespace,
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(pc, gvk)}},
		Spec: cnpgv1.ClusterSpec{EnableSuperuserAccess: access},
	}
}

func TestSuperuserAccessDecision(t *testing.T) {
	t.Parallel()
	pc := cluster(pgv1.ClusterSettings{})
	retained := runningWith(pc, ptr.To(true))
	retained.OwnerReferences = nil
	retained.Labels = ownership.ManagedLabels(ownership.ClusterLabel, pc.Name)
	foreign := runningWith(pc, ptr.To(true))
	foreign.OwnerReferences[0].UID = "someone-else"
	for _, c := range []struct {
		name     string
		want     *bool
		external bool
		running  *cnpgv1.Cluster
		on       bool
	}{
		{"new cluster, unset: off as in CNPG", nil, false, nil, false},
		{"new cluster, true", ptr.To(true), false, nil, true},
		{"unset keeps an earlier setpoint's access", nil, false, runningWith(pc, ptr.To(true)), true},
		{"unset keeps access off", nil, false, runningWith(pc, ptr.To(false)), false},
		{"unset, CNPG's default", nil, false, runningWith(pc, nil), false},
		{"false turns an earlier setpoint's access off", ptr.To(false), false, runningWith(pc, ptr.To(true)), false},
		{"true turns it on", ptr.To(true), false, runningWith(pc, ptr.To(false)), true},
		{"unset with an external superuser Secret", nil, true, nil, true},
		{"unset keeps a retained CNPG Cluster's access", nil, false, retained, true},
		{"unset ignores a CNPG Cluster that is not ours", nil, false, foreign, false},
	} {
		if got := superuserAccess(c.want, c.external, pc, c.running); got != c.on {
			t.Errorf("%s: access %v, want %v", c.name, got, c.on)
		}
	}
}

// superuserAccess is a setting like the others: preset by the class,
// overridden by the cluster, decided against the running CNPG Cluster.
func TestSuperuserAccessMergesAndResolves(t *testing.T) {
	t.Parallel()
	on := class()
	on.Spec.SuperuserAccess = ptr.To(true)
	for _, c := range []struct {
		name    string
		class   *pgv1.PostgresClusterClass
		s       pgv1.ClusterSettings
		running bool
		want    bool
	}{
		{"neither says", class(), pgv1.ClusterSettings{}, false, false},
		{"the class turns it on", on, pgv1.ClusterSettings{}, false, true},
		{"the cluster turns the class's off", on, pgv1.ClusterSettings{SuperuserAccess: ptr.To(false)}, true, false},
		{"unset keeps what runs", class(), pgv1.ClusterSettings{}, true, true},
	} {
		pc := cluster(c.s)
		var running *cnpgv1.Cluster
		if c.running {
			running = runningWith(pc, ptr.To(true))
		}
		d, err := resolveAgainst(pc, c.class, running, t0)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if d.Superuser != c.want {
			t.Errorf("%s: superuser %v, want %v", c.name, d.Superuser, c.want)
		}
	}
}

// An external superuser Secret with superuserAccess false is a
// contradiction: refused by the CRD in one object, Failed here when false
// comes from the class; true on the cluster settles it.
func TestExternalSecretWithAccessOffIsRefused(t *testing.T) {
	t.Parallel()
	off := class()
	off.Spec.SuperuserAccess = ptr.To(false)
	pc := cluster(pgv1.ClusterSettings{})
	pc.Spec.PasswordConfig = &pgv1.ClusterPasswordConfig{SuperuserExternalSecretRef: &pgv1.LocalObjectReference{Name: "vault-su"}}
	_, err := resolve(pc, off)
	var se *specError
	if !errors.As(err, &se) || se.reason != "SuperuserAccessOff" || se.message == "" {
		t.Fatalf("err = %v, want SuperuserAccessOff", err)
	}
	pc.Spec.SuperuserAccess = ptr.To(true)
	d, err := resolveAgainst(pc, off, nil, t0)
	if err != nil || !d.Superuser || d.ExternalSuperSec != "vault-su" {
		t.Fatalf("cluster true over class false: %+v, %v", d, err)
	}
	// Unset everywhere: naming the Secret asks for access.
	pc.Spec.SuperuserAccess = nil
	if d, err := resolveAgainst(pc, class(), nil, t0); err != nil || !d.Superuser {
		t.Fatalf("external Secret, access unset: superuser %v, %v", d.Superuser, err)
	}
}
