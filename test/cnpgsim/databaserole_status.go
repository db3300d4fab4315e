package cnpgsim

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// roleStatus is the part of a DatabaseRole's status one outcome of the
// instance manager sets (CNPG's SetAsReady, SetAsFailed and the operator's
// cluster-deleted mark); nil fields are left as they are. CNPG merge-patches
// these fields only, as the operator writes the conditions concurrently.
type roleStatus struct {
	applied               *bool
	message               *string
	observedGeneration    *int64
	secretResourceVersion *string
}

func roleReady(generation int64, secretVersion string) roleStatus {
	applied, message := true, ""
	return roleStatus{applied: &applied, message: &message, observedGeneration: &generation, secretResourceVersion: &secretVersion}
}

func roleFailed(message string) roleStatus {
	applied := false
	return roleStatus{applied: &applied, message: &message}
}

func roleClusterGone() roleStatus {
	st := roleFailed(msgClusterDeleted)
	var zero int64
	st.observedGeneration = &zero
	return st
}

// holds says whether cur already is what this outcome sets.
func (p roleStatus) holds(cur cnpgv1.DatabaseRoleStatus) bool {
	return (p.applied == nil || (cur.Applied != nil && *cur.Applied == *p.applied)) &&
		(p.message == nil || cur.Message == *p.message) &&
		(p.observedGeneration == nil || cur.ObservedGeneration == *p.observedGeneration) &&
		(p.secretResourceVersion == nil || cur.SecretResourceVersion == *p.secretResourceVersion)
}

// patch is the JSON merge patch: an empty string or zero removes the field,
// as CNPG's diff of two objects with omitempty fields does.
func (p roleStatus) patch() map[string]any {
	st := map[string]any{}
	if p.applied != nil {
		st["applied"] = *p.applied
	}
	if p.message != nil {
		st["message"] = emptyAsNull(*p.message)
	}
	if p.observedGeneration != nil {
		st["observedGeneration"] = nil
		if *p.observedGeneration != 0 {
			st["observedGeneration"] = *p.observedGeneration
		}
	}
	if p.secretResourceVersion != nil {
		st["secretResourceVersion"] = emptyAsNull(*p.secretResourceVersion)
	}
	return map[string]any{"status": st}
}

func emptyAsNull(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// patchDatabaseRoleStatus writes an outcome unless it already holds.
func (s *Simulator) patchDatabaseRoleStatus(ctx context.Context, role *cnpgv1.DatabaseRole, p roleStatus) error {
	_, err := s.writeDatabaseRoleStatus(ctx, role, p)
	return err
}

// writeDatabaseRoleStatus is patchDatabaseRoleStatus returning the object
// as it is now (nil when it is gone), for a write that follows.
func (s *Simulator) writeDatabaseRoleStatus(ctx context.Context, role *cnpgv1.DatabaseRole, p roleStatus) (*cnpgv1.DatabaseRole, error) {
	if p.holds(role.Status) {
		return role, nil
	}
	return s.patchDatabaseRole(ctx, role, p.patch(), "status")
}

// syncPasswordCondition is the operator's reconcilePasswordCondition: the
// PasswordSecretChange condition (True, reason ChangeDetected) carries the
// password Secret's resourceVersion, which is how the instance manager,
// not allowed to watch Secrets, learns that the password changed. It is
// removed when no Secret is named, and left alone while the Secret does
// not exist. It returns the object as written (nil when it is gone).
func (s *Simulator) syncPasswordCondition(ctx context.Context, role *cnpgv1.DatabaseRole) (*cnpgv1.DatabaseRole, error) {
	conditions := append([]metav1.Condition(nil), role.Status.Conditions...)
	changed := false
	if role.Spec.PasswordSecret == nil {
		changed = meta.RemoveStatusCondition(&conditions, cnpgv1.DatabaseRoleConditionPasswordSecretChange)
	} else {
		secret, err := s.secrets.Secrets(role.Namespace).Get(role.Spec.PasswordSecret.Name)
		if apierrors.IsNotFound(err) {
			return role, nil
		}
		if err != nil {
			return nil, fmt.Errorf("get password secret: %w", err)
		}
		changed = meta.SetStatusCondition(&conditions, metav1.Condition{
			Type:    cnpgv1.DatabaseRoleConditionPasswordSecretChange,
			Status:  metav1.ConditionTrue,
			Reason:  "ChangeDetected",
			Message: secret.ResourceVersion,
		})
	}
	if !changed {
		return role, nil
	}
	return s.patchDatabaseRole(ctx, role, map[string]any{"status": map[string]any{"conditions": conditions}}, "status")
}

// passwordConditionVersion is the Secret version the operator last saw.
func passwordConditionVersion(role *cnpgv1.DatabaseRole) string {
	if c := meta.FindStatusCondition(role.Status.Conditions, cnpgv1.DatabaseRoleConditionPasswordSecretChange); c != nil {
		return c.Message
	}
	return ""
}

// setDatabaseRoleFinalizers patches the finalizer list, guarded by
// resourceVersion: a merge patch replaces lists whole.
func (s *Simulator) setDatabaseRoleFinalizers(ctx context.Context, role *cnpgv1.DatabaseRole, finalizers []string) error {
	_, err := s.patchFinalizers(ctx, role, finalizers)
	return err
}

// addDatabaseRoleFinalizer adds CNPG's finalizer and returns the object
// as stored (nil if it is gone).
func (s *Simulator) addDatabaseRoleFinalizer(ctx context.Context, role *cnpgv1.DatabaseRole) (*cnpgv1.DatabaseRole, error) {
	return s.patchFinalizers(ctx, role, append(slices.Clone(role.Finalizers), databaseRoleFinalizer))
}

func (s *Simulator) patchFinalizers(ctx context.Context, role *cnpgv1.DatabaseRole, finalizers []string) (*cnpgv1.DatabaseRole, error) {
	return s.patchDatabaseRole(ctx, role, map[string]any{"metadata": map[string]any{
		"finalizers":      finalizers,
		"resourceVersion": role.ResourceVersion,
	}})
}

// patchDatabaseRole sends a merge patch; a DatabaseRole that is gone is not
// an error (nil is returned).
func (s *Simulator) patchDatabaseRole(ctx context.Context, role *cnpgv1.DatabaseRole, patch map[string]any, subresources ...string) (*cnpgv1.DatabaseRole, error) {
	data, err := json.Marshal(patch)
	if err != nil {
		return nil, fmt.Errorf("encode databaserole patch: %w", err)
	}
	next, err := s.cnpg.CNPGV1().DatabaseRoles(role.Namespace).Patch(ctx, role.Name, types.MergePatchType, data,
		metav1.PatchOptions{FieldManager: s.opts.FieldManager}, subresources...)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("patch databaserole %v: %w", subresources, err)
	}
	return next, nil
}
