package database

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// cleanup runs one database's deletion policy — for a database removed
// from the spec or for every database of a deleted object. It returns
// Ready when nothing is left to do (the database's status entry is then
// dropped), otherwise where it waits.
func (p *pass) cleanup(ctx context.Context, name string, policy pgv1.DeletionPolicy) health {
	var h health
	if policy == pgv1.DeletionPolicyRetain || p.obs.cluster == nil {
		// Without its PostgresCluster nothing can be dropped safely: a
		// retained CNPG Cluster may still run the database and manage its
		// roles with these Secrets. Keep everything (see finalize).
		h = p.retain(ctx, name)
	} else {
		h = p.drop(ctx, name)
	}
	if h.Phase == pgv1.PhaseReady {
		delete(p.entries, name)
	} else if e := p.entries[name]; e != nil {
		e.Ready, e.Message = false, h.Message
	}
	return h
}

// removedPolicy recovers the deletionPolicy of a database no longer in
// the spec: from its ConfigMap's annotation, else from its CNPG Database's
// reclaim policy, else from roles already marked absent (a Delete in
// progress). Unknown means Retain: keeping data is the safe mistake.
func (p *pass) removedPolicy(name string) pgv1.DeletionPolicy {
	n := namesOf(p.db, name)
	if cm := p.obs.configMaps[n.ConfigMap]; cm != nil && ownership.IsControlledBy(cm, p.db.UID) {
		if v := pgv1.DeletionPolicy(cm.Annotations[policyAnnotation]); v == pgv1.DeletionPolicyDelete || v == pgv1.DeletionPolicyRetain {
			return v
		}
	}
	if d := p.obs.cnpg[n.CNPG]; d != nil && ownsClusterSide(d, p.db) {
		if d.Spec.DatabaseReclaimPolicy == cnpgv1.DatabaseReclaimDelete {
			return pgv1.DeletionPolicyDelete
		}
		return pgv1.DeletionPolicyRetain
	}
	if e := p.entries[name]; e != nil && len(e.Roles) > 0 &&
		!slices.ContainsFunc(e.Roles, func(r pgv1.RoleStatus) bool { return r.Ensure != pgv1.RoleEnsureAbsent }) {
		return pgv1.DeletionPolicyDelete
	}
	return pgv1.DeletionPolicyRetain
}

// retain releases the database's objects — no owner reference, labelled
// retained — so the garbage collector keeps them and a later
// PostgresDatabase of the same name adopts them, old passwords included.
// Its DatabaseRoles go with reclaim retain: CNPG stops managing the roles
// and leaves them in place. That holds without the PostgresCluster too: a
// retained CNPG Cluster still serves the roles, and the garbage collector
// would otherwise delete the DatabaseRoles with this object, under reclaim
// delete.
func (p *pass) retain(ctx context.Context, name string) health {
	n := namesOf(p.db, name)
	ns := clusterNS(p.db)
	released := false
	var waits []health
	for _, r := range p.obs.roleNames[name] {
		if h, done := p.removeRole(ctx, r, pgv1.DeletionPolicyRetain, false); !done {
			waits = append(waits, h)
		}
	}
	if d := p.obs.cnpg[n.CNPG]; d != nil && ownsClusterSide(d, p.db) {
		released = true
		// Re-apply the fields we own without our owner reference, which
		// server-side apply then removes. The reclaim policy becomes
		// retain: whoever deletes the kept object later must not drop
		// the data with it.
		spec := d.Spec
		spec.DatabaseReclaimPolicy = cnpgv1.DatabaseReclaimRetain
		ac := databaseApply(p.db, n.CNPG, spec, !crossNamespace(p.db))
		if _, err := p.deps.pg.CNPGV1().Databases(ns).Apply(ctx, ac, applyOpts); err != nil {
			return apiError(pgv1.ReasonReleaseFailed, fmt.Errorf("release CNPG Database %s: %w", n.CNPG, err))
		}
		if crossNamespace(p.db) {
			// Across namespaces nothing on the cluster side is kept for
			// adoption (checkClusterSide): the object goes, under reclaim
			// retain, and the database stays in Postgres with setpoint's
			// marker for a later PostgresDatabase of this name.
			if err := p.deps.pg.CNPGV1().Databases(ns).Delete(ctx, n.CNPG, ownership.DeleteOf(d)); err != nil && !apierrors.IsNotFound(err) {
				return apiError(pgv1.ReasonReleaseFailed, fmt.Errorf("delete CNPG Database %s/%s: %w", ns, n.CNPG, err))
			}
		}
	}
	if err := p.deleteCopies(ctx, p.copiesOf(name, n)); err != nil {
		return apiError(pgv1.ReasonSecretDeleteFailed, err)
	}
	if cm := p.obs.configMaps[n.ConfigMap]; cm != nil && ownership.IsControlledBy(cm, p.db.UID) {
		released = true
		if err := p.releaseConfigMap(ctx, cm); err != nil {
			return apiError(pgv1.ReasonReleaseFailed, fmt.Errorf("release ConfigMap %s: %w", n.ConfigMap, err))
		}
	}
	for _, sn := range secretsOf(n, p.obs.roleNames[name]) {
		if s := p.obs.secrets[sn]; s != nil && ownership.IsControlledBy(s, p.db.UID) {
			released = true
			if err := p.releaseSecret(ctx, s); err != nil {
				return apiError(pgv1.ReasonReleaseFailed, err)
			}
		}
	}
	if !released {
		return worst(waits)
	}
	p.deps.recorder.Eventf(p.db, corev1.EventTypeNormal, pgv1.EventRetained,
		"Kept database %s, its roles and credentials (CNPG Database %s, Secrets %s and %s, ConfigMap %s)",
		name, n.CNPG, n.AdminSecret, n.RWSecret, n.ConfigMap)
	return worst(waits)
}

func (p *pass) releaseSecret(ctx context.Context, s *corev1.Secret) error {
	patch, err := p.owner().ReleasePatch(s, nil)
	if err != nil {
		return err
	}
	if _, err := p.deps.kube.CoreV1().Secrets(s.Namespace).Patch(ctx, s.Name, mergePatch, patch, metav1.PatchOptions{FieldManager: fieldManager}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("release Secret %s: %w", s.Name, err)
	}
	return nil
}

// drop removes the database and then its roles, in that order: a role
// that owns a database cannot be dropped. CNPG drops the database when we
// delete its CNPG Database (reclaim policy delete), and each role when we
// delete its DatabaseRole (reclaim policy delete). Only then are the
// credentials and connection info deleted.
func (p *pass) drop(ctx context.Context, name string) health {
	n := namesOf(p.db, name)
	ns := clusterNS(p.db)
	if d := p.obs.cnpg[n.CNPG]; d != nil && ownsClusterSide(d, p.db) {
		if d.DeletionTimestamp == nil {
			if err := p.deps.pg.CNPGV1().Databases(ns).Delete(ctx, n.CNPG, ownership.DeleteOf(d)); err != nil && !apierrors.IsNotFound(err) {
				return apiError(pgv1.ReasonDatabaseDeleteFailed, fmt.Errorf("delete CNPG Database %s: %w", n.CNPG, err))
			}
			p.deps.recorder.Eventf(p.db, corev1.EventTypeNormal, pgv1.EventDatabaseDeleting, "Deleted CNPG Database %s; CloudNativePG drops database %s", n.CNPG, name)
		}
		return p.dropWait(fmt.Sprintf("waiting for CloudNativePG to drop database %s", name))
	}
	if h := p.dropRoles(ctx, name); h.Phase != pgv1.PhaseReady {
		return h
	}
	if err := p.deleteCopies(ctx, p.copiesOf(name, n)); err != nil {
		return apiError(pgv1.ReasonSecretDeleteFailed, err)
	}
	if err := p.deleteCredentials(ctx, n, p.obs.roleNames[name]); err != nil {
		return apiError(pgv1.ReasonSecretDeleteFailed, err)
	}
	return ready("", "")
}

// deleteCredentials deletes the generated Secrets of roles and the ConfigMap we
// control. For a deleted object the garbage collector would too; for a
// database removed from the spec nothing else will.
func (p *pass) deleteCredentials(ctx context.Context, n names, roles []string) error {
	ns := p.db.Namespace
	for _, sn := range secretsOf(n, roles) {
		if s := p.obs.secrets[sn]; s != nil && ownership.IsControlledBy(s, p.db.UID) {
			if err := p.deps.kube.CoreV1().Secrets(ns).Delete(ctx, sn, ownership.DeleteOf(s)); err != nil && !apierrors.IsNotFound(err) {
				return fmt.Errorf("delete Secret %s: %w", sn, err)
			}
		}
	}
	if cm := p.obs.configMaps[n.ConfigMap]; cm != nil && ownership.IsControlledBy(cm, p.db.UID) {
		if err := p.deps.kube.CoreV1().ConfigMaps(ns).Delete(ctx, n.ConfigMap, ownership.DeleteOf(cm)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete ConfigMap %s: %w", n.ConfigMap, err)
		}
	}
	return nil
}
