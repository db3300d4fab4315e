package cluster

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

func TestRoleChangeUnread(t *testing.T) {
	t.Parallel()
	role := func(name string) *cnpgv1.DatabaseRole {
		return &cnpgv1.DatabaseRole{ObjectMeta: metav1.ObjectMeta{Name: "shop." + name, ResourceVersion: "1",
			Labels: map[string]string{"postgres.setpoint.dev/cluster": "shop"}},
			Spec: cnpgv1.DatabaseRoleSpec{Name: name, Login: true}}
	}
	for _, c := range []struct {
		name   string
		role   string
		change func(r *cnpgv1.DatabaseRole)
		unread bool
	}{
		{"CNPG's finalizer on the monitor", naming.MonitorRole, func(r *cnpgv1.DatabaseRole) { r.Finalizers = []string{"cnpg.io/deleteRole"} }, true},
		{"the monitor applied", naming.MonitorRole, func(r *cnpgv1.DatabaseRole) { r.Status.Applied = ptr.To(true) }, false},
		{"the certificate group applied", naming.CertAuthGroup, func(r *cnpgv1.DatabaseRole) { r.Status.Applied = ptr.To(true) }, true},
		{"the certificate group's spec edited", naming.CertAuthGroup, func(r *cnpgv1.DatabaseRole) { r.Spec.Login = false }, false},
		{"a label removed", naming.MonitorRole, func(r *cnpgv1.DatabaseRole) { r.Labels = nil }, false},
		{"a retry mark", naming.MonitorRole, func(r *cnpgv1.DatabaseRole) { r.Annotations = cnpgverdict.RetryMark(t0) }, false},
		{"an owner reference dropped", naming.CertAuthGroup, func(r *cnpgv1.DatabaseRole) {
			r.OwnerReferences = []metav1.OwnerReference{{Name: "other"}}
		}, false},
		{"deleted", naming.CertAuthGroup, func(r *cnpgv1.DatabaseRole) { r.DeletionTimestamp = ptr.To(metav1.NewTime(t0)) }, false},
	} {
		o := role(c.role)
		n := o.DeepCopy()
		n.ResourceVersion = "2"
		c.change(n)
		if got := roleChangeUnread(o, n); got != c.unread {
			t.Errorf("%s: unread = %v, want %v", c.name, got, c.unread)
		}
	}
}
