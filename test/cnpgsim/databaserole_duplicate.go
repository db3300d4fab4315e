package cnpgsim

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// appliedRoles remembers, per role name, the DatabaseRole object of one
// Cluster that this process applied it for. It is read and written only
// inside the Cluster's roles turnstile.
type appliedRoles map[string]string

func (a *appliedRoles) record(role *cnpgv1.DatabaseRole) {
	if *a == nil {
		*a = appliedRoles{}
	}
	(*a)[role.Spec.Name] = role.Name
}

// duplicateManager is CNPG's detectConflictingManagers: an object that
// never applied its role must not take over one that another object of
// the same Cluster has applied. CNPG lists its cache, as the stand-in
// does; because the stand-in's cache may not yet hold the status it wrote
// a moment ago for the other object, it also asks its own record of what
// it applied (checked live: the object may be gone), so which of two new
// objects wins is decided by who went first, not by a stale cache. (A
// live list of every DatabaseRole per new role cost the bench O(n²)
// bytes: 2,200 lists of 2,200 objects at 100 × 10.)
func (s *Simulator) duplicateManager(ctx context.Context, inst *instance, role *cnpgv1.DatabaseRole) (string, error) {
	if hasReconciliations(role) {
		return "", nil
	}
	cached, err := s.databaseRoles.DatabaseRoles(role.Namespace).List(labels.Everything())
	if err != nil {
		return "", fmt.Errorf("list databaseroles: %w", err)
	}
	for _, other := range cached {
		if other.Name != role.Name && other.Spec.Cluster.Name == role.Spec.Cluster.Name &&
			other.Status.ObservedGeneration > 0 && other.Spec.Name == role.Spec.Name {
			return msgDuplicate(role.Spec.Name, other.Name), nil
		}
	}
	return s.recordedManager(ctx, inst, role)
}

// recordedManager is the other object this process applied role's name
// for, if it still exists and still names it.
func (s *Simulator) recordedManager(ctx context.Context, inst *instance, role *cnpgv1.DatabaseRole) (string, error) {
	name, ok := inst.appliedRoles[role.Spec.Name]
	if !ok || name == role.Name {
		return "", nil
	}
	other, err := s.cnpg.CNPGV1().DatabaseRoles(role.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		delete(inst.appliedRoles, role.Spec.Name)
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("get databaserole: %w", err)
	}
	if other.Spec.Name != role.Spec.Name || other.Spec.Cluster.Name != role.Spec.Cluster.Name || other.Status.ObservedGeneration == 0 {
		return "", nil
	}
	return msgDuplicate(role.Spec.Name, other.Name), nil
}
