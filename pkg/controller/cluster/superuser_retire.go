package cluster

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// With superuser access off there is no superuser Secret: CNPG sets the
// postgres password to NULL and ignores any superuserSecret, so a password
// kept in a Secret would open nothing — but it would open the server again
// the moment someone turned access back on by hand. So the Secret setpoint
// generated is deleted, once the CNPG Cluster no longer has access (the
// provisioner turns it off later in the same pass; until CNPG's object
// says so, CNPG may still read the Secret). A Secret that is not ours —
// an external one, or one retained for a later cluster — is never touched.

// retireSuperuser deletes our generated superuser Secret when nothing
// needs it any more, and records in the pass one that is kept for now.
func retireSuperuser(ctx context.Context, p *pass) error {
	s := p.obs.secret
	if s == nil || !ownership.IsControlledBy(s, p.cluster.UID) || s.DeletionTimestamp != nil {
		return nil
	}
	if hasSuperuserAccess(p.observedCNPG()) {
		p.secret.retiring = s // kept until the CNPG Cluster is off
		return nil
	}
	err := p.deps.kube.CoreV1().Secrets(s.Namespace).Delete(ctx, s.Name, ownership.DeleteOf(s))
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete superuser secret: %w", err)
	}
	klog.FromContext(ctx).V(2).Info("Deleted superuser Secret: superuser access is off", "secret", klog.KObj(s))
	p.deps.recorder.Eventf(p.cluster, corev1.EventTypeNormal, pgv1.EventSuperuserSecretDeleted,
		"deleted superuser Secret %s: superuser access is off", s.Name)
	return nil
}

// hasSuperuserAccess: the CNPG Cluster lets postgres log in with the
// superuser Secret's password.
func hasSuperuserAccess(cl *cnpgv1.Cluster) bool {
	return cl != nil && ptr.Deref(cl.Spec.EnableSuperuserAccess, false)
}

// superuserOff is the secret component's health while access is off: Ready,
// with no Secret published, and none named in status.
func superuserOff(p *pass) health {
	p.contracts.NoSuperuser = true
	if r := p.status.Resources; r != nil {
		r.SuperUserSecretRef = nil
	}
	recordSuperuserRotation(p, nil, "")
	if s := p.secret.retiring; s != nil {
		return ready(pgv1.ReasonSuperuserAccessOff, fmt.Sprintf("superuser access is off; superuser Secret %q is deleted once the CNPG Cluster no longer has superuser access", s.Name))
	}
	return ready(pgv1.ReasonSuperuserAccessOff, "superuser access is off: there is no superuser Secret")
}
