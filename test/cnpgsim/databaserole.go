package cnpgsim

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// The DatabaseRole stand-in models CNPG v1.30.0, whose behaviour is split
// between two processes that both write a DatabaseRole's status:
//
//   - the operator (internal/controller/databaserole_controller.go) keeps the
//     PasswordSecretChange condition, whose message is the resourceVersion
//     of the password Secret (it watches only Secrets labelled
//     cnpg.io/reload: "true", and re-reads the Secret on any event of the
//     DatabaseRole itself); on a Cluster's deletion it marks the Cluster's
//     DatabaseRoles and releases their finalizers
//     (internal/controller/finalizers_delete.go);
//   - the primary's instance manager
//     (internal/management/controller/databaserole_controller.go, with the
//     SQL of internal/management/controller/roles/postgres.go and
//     contract.go) applies the role and writes applied, message,
//     observedGeneration and secretResourceVersion.
//
// One sync here runs the operator's part, then the instance manager's, each
// merge-patching only its own status fields as CNPG's do.
//
// What the source shows, and the stand-in does:
//
//   - A role that already exists in Postgres and that nothing manages is
//     taken over: the instance manager lists the roles, finds it and ALTERs
//     it to the spec (memberships, attributes, password, comment) instead
//     of creating it. Nothing marks it as adopted; with reclaim delete it
//     is dropped like a role the object created.
//   - Once applied (observedGeneration equals generation and, with a
//     passwordSecret, secretResourceVersion equals the condition's
//     message), the role is not looked at again: a change made to it in
//     Postgres by hand stays until the spec or the Secret changes.
//   - A Secret without the reload label is not watched: a new password is
//     applied at the next event of the DatabaseRole (or a spec change).
//   - Reserved names (postgres, streaming_replica, pg_*, cnpg_*), an empty
//     name, ensure absent, passwordSecret with disablePassword, and
//     clientCertificate without login are refused by the CRD's CEL rules;
//     CNPG 1.30 registers no DatabaseRole webhook
//     (internal/cmd/manager/controller/controller.go setupWebhooks). The
//     instance manager still guards against a reserved name and ensure
//     absent with messages of its own (modelled, unreachable through the
//     API server).
//
// Where the stand-in is simpler: CNPG's instance manager retries failures
// every 30 s, the stand-in after databaseRoleRetry; a Cluster whose server
// is not serving gets nothing done (CNPG's instance manager, if its pod
// runs, would report the connection error); replica clusters
// ("waiting for the cluster to become primary") and the
// cnpg.io/passwordPassthrough annotation are not simulated. Client
// certificates are (databaserole_cert.go).

// databaseRoleFinalizer is CNPG's utils.RoleFinalizerName: it holds a
// DatabaseRole until its reclaim policy has been carried out.
const databaseRoleFinalizer = "cnpg.io/deleteRole"

// databaseRoleRetry is how soon a role that failed, or waits for its
// Cluster's server, is tried again (CNPG: 30 s).
const databaseRoleRetry = 2 * time.Second

// Messages CNPG v1.30.0 writes to status.message, word for word.
const (
	// errClusterIsManagingRole: the name is in the Cluster's spec.managed.roles.
	msgManagedByCluster = "database role is already managed by the CNPG cluster"
	// The CRD's CEL rule refuses it first.
	msgEnsureAbsent = "ensure: absent is not supported for DatabaseRole;" +
		" delete the resource with databaseRoleReclaimPolicy: delete instead"
	// Written by the operator to every DatabaseRole of a deleted Cluster.
	msgClusterDeleted = "cluster resource has been deleted, skipping reconciliation"
)

// msgDuplicate is CNPG's ensureManagedResourceExclusivity error
// (api/v1/generic_funcs.go): another object already applied the role.
func msgDuplicate(role, object string) string {
	return fmt.Sprintf("%q is already managed by object %q", role, object)
}

// msgReserved is the instance manager's guard behind the CEL rules.
func msgReserved(role string) string {
	return fmt.Sprintf("role name %q is reserved and cannot be managed via DatabaseRole", role)
}

// syncDatabaseRole is one pass of CNPG's operator and then its instance
// manager over a DatabaseRole.
func (s *Simulator) syncDatabaseRole(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	role, err := s.databaseRoles.DatabaseRoles(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("get databaserole: %w", err)
	}
	role, err = s.syncPasswordCondition(ctx, role)
	if err != nil || role == nil {
		return 0, err
	}
	role, err = s.syncClientCertificate(ctx, role)
	if err != nil || role == nil {
		return 0, err
	}
	c, err := s.clusters.Clusters(role.Namespace).Get(role.Spec.Cluster.Name)
	if err != nil || c.DeletionTimestamp != nil {
		// No instance manager runs for a Cluster that does not exist: the
		// object waits, without finalizer or status, for one to appear.
		return 0, nil
	}
	inst := s.instance(cache.ObjectName{Namespace: c.Namespace, Name: c.Name})
	if inst == nil {
		return databaseRoleRetry, nil
	}
	// CNPG's instance manager reconciles one DatabaseRole at a time.
	if !inst.roles.enter(key) {
		return 0, nil // queued again when the running one leaves
	}
	defer func() {
		for _, k := range inst.roles.leave() {
			s.roleLoop.add(k)
		}
	}()
	return s.reconcileDatabaseRole(ctx, inst, role, c)
}

// reconcileDatabaseRole is the instance manager's Reconcile, in its order:
// an applied role is only re-checked; otherwise the gates (primary,
// managed.roles), the finalizer or the deletion, the checks and the SQL.
func (s *Simulator) reconcileDatabaseRole(ctx context.Context, inst *instance, role *cnpgv1.DatabaseRole, c *cnpgv1.Cluster) (time.Duration, error) {
	if databaseRoleApplied(role) {
		return s.recheckAppliedRole(ctx, inst, role, c)
	}
	return s.applyDatabaseRoleObject(ctx, inst, role, c)
}

func (s *Simulator) applyDatabaseRoleObject(ctx context.Context, inst *instance, role *cnpgv1.DatabaseRole, c *cnpgv1.Cluster) (time.Duration, error) {
	b, err := s.servingBackend(role.Namespace, c.Name)
	if err != nil {
		return databaseRoleRetry, nil // only the running primary acts
	}
	if role.DeletionTimestamp != nil {
		return s.finalizeDatabaseRole(ctx, role, c, b)
	}
	if clusterManagesRole(c, role.Spec.Name) {
		return s.databaseRoleFailed(ctx, role, msgManagedByCluster)
	}
	if !slices.Contains(role.Finalizers, databaseRoleFinalizer) {
		// CNPG adds it and goes on in the same reconcile.
		var err error
		if role, err = s.addDatabaseRoleFinalizer(ctx, role); err != nil || role == nil {
			return 0, err
		}
	}
	if role.Spec.Ensure == cnpgv1.EnsureAbsent {
		return s.databaseRoleFailed(ctx, role, msgEnsureAbsent)
	}
	if msg, err := s.duplicateManager(ctx, inst, role); err != nil || msg != "" {
		if err != nil {
			return 0, err
		}
		return s.databaseRoleFailed(ctx, role, msg)
	}
	if msg, raced := s.secretRace(inst, role); raced {
		_, err := s.databaseRoleFailed(ctx, role, msg)
		return secretForbiddenRetry, err
	}
	secret, err := s.passwordSecret(ctx, role)
	if err != nil {
		return s.databaseRoleFailed(ctx, role, err.Error())
	}
	if isReservedRole(role.Spec.Name) {
		return s.databaseRoleFailed(ctx, role, msgReserved(role.Spec.Name))
	}
	password, err := rolePassword(role.Spec, secret)
	if err != nil {
		return s.databaseRoleFailed(ctx, role, err.Error())
	}
	if err := applyDatabaseRole(ctx, b.srv, role.Spec, password); err != nil {
		if ctx.Err() != nil {
			return 0, ctx.Err()
		}
		klog.FromContext(ctx).V(2).Info("DatabaseRole not applied", "role", role.Spec.Name, "err", err)
		return s.databaseRoleFailed(ctx, role, err.Error())
	}
	inst.appliedRoles.record(role)
	return 0, s.patchDatabaseRoleStatus(ctx, role, roleReady(role.Generation, password.version))
}

// databaseRoleApplied is CNPG's isAlreadyReconciled: this generation was
// applied and, with a password Secret, from the Secret version the operator
// last saw. A spec change, the deletion (which bumps the generation) or a
// new Secret version make it false.
func databaseRoleApplied(role *cnpgv1.DatabaseRole) bool {
	if role.Generation != role.Status.ObservedGeneration {
		return false
	}
	if role.Spec.PasswordSecret == nil || role.Spec.PasswordSecret.Name == "" {
		return true
	}
	return role.Status.SecretResourceVersion == passwordConditionVersion(role)
}

// recheckAppliedRole is CNPG's reconcileAppliedRole: an applied role is
// left alone unless managed.roles took it over since (reported, keeping
// observedGeneration, so the object stays the role's owner), or it was
// reported not applied and managed.roles let it go (applied again).
func (s *Simulator) recheckAppliedRole(ctx context.Context, inst *instance, role *cnpgv1.DatabaseRole, c *cnpgv1.Cluster) (time.Duration, error) {
	if role.DeletionTimestamp != nil {
		return 0, nil
	}
	if _, err := s.servingBackend(role.Namespace, c.Name); err != nil {
		return 0, nil
	}
	if clusterManagesRole(c, role.Spec.Name) {
		return s.databaseRoleFailed(ctx, role, msgManagedByCluster)
	}
	if role.Status.Applied == nil || !*role.Status.Applied {
		return s.applyDatabaseRoleObject(ctx, inst, role, c)
	}
	return 0, nil
}

// hasReconciliations is CNPG's HasReconciliations: the object applied its
// role at least once (a failure leaves observedGeneration as it was).
func hasReconciliations(role *cnpgv1.DatabaseRole) bool {
	return role.Status.ObservedGeneration > 0
}

// clusterManagesRole is CNPG's isClusterManagingRole: managed.roles wins.
func clusterManagesRole(c *cnpgv1.Cluster, name string) bool {
	if c.Spec.Managed == nil {
		return false
	}
	return slices.ContainsFunc(c.Spec.Managed.Roles, func(r cnpgv1.RoleConfiguration) bool { return r.Name == name })
}

// finalizeDatabaseRole is CNPG's handleDeletion: the role is dropped only
// with reclaim delete, when this object applied it at least once (a
// duplicate that never did must not drop the survivor's role) and
// managed.roles does not hold it; a role that cannot be dropped (it owns
// objects) keeps the finalizer and reports Postgres's error.
func (s *Simulator) finalizeDatabaseRole(ctx context.Context, role *cnpgv1.DatabaseRole, c *cnpgv1.Cluster, b *backend) (time.Duration, error) {
	if !slices.Contains(role.Finalizers, databaseRoleFinalizer) {
		return 0, nil
	}
	if role.Spec.DatabaseRoleReclaimPolicy == cnpgv1.DatabaseRoleReclaimDelete &&
		hasReconciliations(role) && !clusterManagesRole(c, role.Spec.Name) {
		if err := dropDatabaseRole(ctx, b.srv, role.Spec.Name); err != nil {
			if ctx.Err() != nil {
				return 0, ctx.Err()
			}
			return s.databaseRoleFailed(ctx, role, err.Error())
		}
		klog.FromContext(ctx).Info("Dropped role", "role", role.Spec.Name)
	}
	return 0, s.setDatabaseRoleFinalizers(ctx, role, slices.DeleteFunc(slices.Clone(role.Finalizers),
		func(f string) bool { return f == databaseRoleFinalizer }))
}

// databaseRoleFailed reports a failure (CNPG's SetAsFailed: applied false
// and the message; observedGeneration stays) and retries.
func (s *Simulator) databaseRoleFailed(ctx context.Context, role *cnpgv1.DatabaseRole, message string) (time.Duration, error) {
	return databaseRoleRetry, s.patchDatabaseRoleStatus(ctx, role, roleFailed(message))
}

// trimmedEqual compares a Secret's username with a role name as CNPG does.
func trimmedEqual(a, b string) bool { return strings.TrimSpace(a) == strings.TrimSpace(b) }
