package cluster

import (
	"cmp"
	"crypto/rand"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/controller/roleprivilege"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// The cluster's monitor role (naming.MonitorRole) as Kubernetes
// objects: a generated basic-auth Secret and the CNPG DatabaseRole that
// makes CNPG create the role with that password, as a member of
// pg_monitor.

// monitorGroup is the only membership the monitor role has: pg_monitor
// reads every catalog and statistics view setpoint's checks and the
// collector read, and can change nothing.
const monitorGroup = "pg_monitor"

// newMonitorSecret is the monitor role's Secret: generated once, never
// rewritten, labelled for CNPG's reload as the superuser Secret is.
func newMonitorSecret(p *pass) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: naming.MonitorSecret(p.cluster.Name), Namespace: p.cluster.Namespace,
			Labels:          superuserLabels(p.cluster.Name),
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.cluster, gvk)},
		},
		Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte(naming.MonitorRole), "password": []byte(rand.Text())},
	}
}

// monitorRoleApply is the server-side apply of the monitor's DatabaseRole:
// only our fields, our labels, our controller reference. Reclaim delete:
// the role holds nothing, and without its PostgresCluster nothing logs in
// as it.
func monitorRoleApply(p *pass) *cnpgac.DatabaseRoleApplyConfiguration {
	name := p.cluster.Name
	spec := roleprivilege.Unprivileged(cnpgac.DatabaseRoleSpec()).
		WithCluster(cnpgac.LocalObjectReference().WithName(name)).
		WithName(naming.MonitorRole).WithLogin(true).
		WithInRoles(monitorGroup).
		WithPasswordSecret(cnpgac.LocalObjectReference().WithName(naming.MonitorSecret(name))).
		WithComment(ownership.ClusterMarker(p.cluster.Namespace, name)).
		WithDatabaseRoleReclaimPolicy(cnpgv1.DatabaseRoleReclaimDelete)
	return cnpgac.DatabaseRole(naming.MonitorRoleObject(name), p.cluster.Namespace).
		WithLabels(ownership.ManagedLabels(ownership.ClusterLabel, name)).
		WithOwnerReferences(ownership.OwnerRefApply(p.cluster, gvk)).
		WithSpec(spec)
}

// monitorRoleCurrent compares the fields we own, with CNPG's defaults, so
// that what the API server or CNPG fill in causes no apply.
func monitorRoleCurrent(cur *cnpgv1.DatabaseRole, p *pass) bool {
	s, name := cur.Spec, p.cluster.Name
	return ownership.IsControlledBy(cur, p.cluster.UID) && ownership.HasLabels(cur.Labels, ownership.ManagedLabels(ownership.ClusterLabel, name)) &&
		s.Cluster.Name == name && s.Name == naming.MonitorRole && s.Login &&
		len(roleprivilege.Drift(cur, []string{monitorGroup})) == 0 &&
		s.PasswordSecret != nil && s.PasswordSecret.Name == naming.MonitorSecret(name) &&
		s.Comment == ownership.ClusterMarker(p.cluster.Namespace, name) &&
		cmp.Or(s.DatabaseRoleReclaimPolicy, cnpgv1.DatabaseRoleReclaimRetain) == cnpgv1.DatabaseRoleReclaimDelete
}

// monitorRoleReady: CNPG applied the DatabaseRole's current generation,
// with the password of secret as it is now (CNPG records the Secret's
// resourceVersion it set the password from): a login as the monitor with
// that Secret works.
func monitorRoleReady(role *cnpgv1.DatabaseRole, secret *corev1.Secret) bool {
	st := role.Status
	return st.ObservedGeneration == role.Generation && ptr.Deref(st.Applied, false) &&
		secret != nil && st.SecretResourceVersion == secret.ResourceVersion
}

// usableMonitor is the monitor's Secret when the snapshot shows the role
// ready to log in as, nil otherwise. Components that run before the
// monitor component (the provisioner's checks) read it from the snapshot.
func usableMonitor(p *pass) *corev1.Secret {
	s, r := p.obs.monitorSecret, p.obs.monitorRole
	if s == nil || r == nil || !ownership.IsControlledBy(s, p.cluster.UID) || !ownership.IsControlledBy(r, p.cluster.UID) ||
		r.DeletionTimestamp != nil || !monitorRoleCurrent(r, p) || !monitorRoleReady(r, s) {
		return nil
	}
	return s
}
