package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// releaseManagedRoles is the upgrade step of roles moving to DatabaseRoles
// (issue 28). A CNPG Cluster made by an earlier setpoint lists its
// databases' roles in spec.managed.roles, applied under rolesFieldManager.
// A role listed there wins over a DatabaseRole of the same name, so the
// list must be emptied first; the database controller creates a role's
// DatabaseRole once no entry with setpoint's marker lists it. Taking an
// entry off the list does not drop the role: CNPG stops managing it, no
// more.
//
// It writes once per cluster: only while rolesFieldManager owns a list that
// still has entries. The cache drops managedFields, so the live object is
// read only when the cached list has an entry with setpoint's marker (all
// the old component wrote had one): a converged cluster reads and writes
// nothing. A list someone else took over since is theirs and left as it
// is.
func releaseManagedRoles(ctx context.Context, p *pass) error {
	cl := p.provisioner.cnpg
	if !listsMarkedRoles(cl) {
		return nil
	}
	if cl.ManagedFields == nil {
		// From the cache: ask the API server who owns the list. The
		// provisioner claimed the object it knows; a live one with another
		// UID is a new object, for the next pass to claim.
		live, err := readCNPG(ctx, p)
		if err != nil || live == nil || live.UID != cl.UID {
			return err
		}
		cl = live
	}
	if !ownsManagedRoles(cl) {
		klog.FromContext(ctx).V(4).Info("Roles with setpoint's marker in a managed.roles list setpoint does not own: left as they are",
			"cnpgCluster", klog.KObj(cl))
		return nil
	}
	released := len(cl.Spec.Managed.Roles)
	applied, err := p.deps.pg.CNPGV1().Clusters(cl.Namespace).Patch(ctx, cl.Name, types.ApplyPatchType,
		releaseRolesBody(cl.Name, cl.Namespace), metav1.PatchOptions{FieldManager: rolesFieldManager, Force: ptr.To(true)})
	if err != nil {
		return fmt.Errorf("release managed roles of CNPG Cluster %s: %w", cl.Name, err)
	}
	p.provisioner.cnpg = applied
	p.deps.recorder.Eventf(p.cluster, corev1.EventTypeNormal, pgv1.EventReleasedManagedRoles,
		"Released %d role(s) from CNPG Cluster %s spec.managed.roles: each becomes a DatabaseRole of its PostgresDatabase", released, cl.Name)
	klog.FromContext(ctx).V(2).Info("Released managed roles", "cnpgCluster", klog.KObj(cl), "roles", released)
	return nil
}

// dropRolesCondition removes the condition of the managedRoles component
// an earlier setpoint ran: its status still carries it, and a True left
// there would go on saying this cluster hands out roles.
func dropRolesCondition(st *pgv1.PostgresClusterStatus) {
	apimeta.RemoveStatusCondition(&st.Conditions, pgv1.ConditionManagedRolesReady)
}

// releaseRolesBody is rolesFieldManager's apply of an explicit empty list.
// An apply configuration would omit the empty list, and applying none at
// all would release the field, leaving "managed: null", which CNPG's
// schema refuses. The list is atomic (CNPG's schema gives no list type),
// so the empty list replaces it whole.
func releaseRolesBody(name, namespace string) []byte {
	return fmt.Appendf(nil, `{"apiVersion":"postgresql.cnpg.io/v1","kind":"Cluster","metadata":{"name":%q,"namespace":%q},"spec":{"managed":{"roles":[]}}}`,
		name, namespace)
}

// listsMarkedRoles: cl's spec.managed.roles has a role with setpoint's
// marker comment (ownership.PostgresMarker).
func listsMarkedRoles(cl *cnpgv1.Cluster) bool {
	if cl == nil || cl.Spec.Managed == nil {
		return false
	}
	return slices.ContainsFunc(cl.Spec.Managed.Roles, func(r cnpgv1.RoleConfiguration) bool {
		_, ok := ownership.MarkerOwner(r.Comment)
		return ok
	})
}

// ownsManagedRoles: cl's spec.managed.roles has entries and, by its
// managedFields, rolesFieldManager owns the list. The list is atomic, so
// its fieldsV1 names f:roles itself, never entries (k:{"name":…}), and
// whoever owns it owns every entry. After the release it still owns the
// empty list: nothing left to release.
func ownsManagedRoles(cl *cnpgv1.Cluster) bool {
	if cl.Spec.Managed == nil || len(cl.Spec.Managed.Roles) == 0 {
		return false
	}
	return slices.ContainsFunc(cl.ManagedFields, func(e metav1.ManagedFieldsEntry) bool {
		return e.Manager == rolesFieldManager && ownsPath(e.FieldsV1, "f:spec", "f:managed", "f:roles")
	})
}

// ownsPath: the field set f names path.
func ownsPath(f *metav1.FieldsV1, path ...string) bool {
	if f == nil {
		return false
	}
	var set map[string]any
	if err := json.Unmarshal(f.Raw, &set); err != nil {
		return false
	}
	for _, step := range path {
		next, ok := set[step].(map[string]any)
		if !ok {
			return false
		}
		set = next
	}
	return true
}
