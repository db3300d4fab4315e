package cluster

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// monitorComponent keeps the cluster's monitor role (naming.MonitorRole),
// which setpoint's own checks and the collector log in as instead of the
// superuser: a generated Secret <cluster>-monitor and a DatabaseRole
// <cluster>.setpoint-monitor controlled by the PostgresCluster. It runs
// after the provisioner because CNPG applies a DatabaseRole only on a
// running Cluster. Once CNPG has applied the role with the Secret's
// password, status.resources.monitorSecretRef names the Secret: from then
// on the database controller logs in with it too.
type monitorComponent struct{}

// monitorState is what the monitor keeps in one pass, between its
// Reconcile and its Observe (pass.monitor; its files alone write it).
// Later components learn of the monitor's Secret from the snapshot and
// status.resources.monitorSecretRef, which Observe sets once CNPG has
// applied the role (usableMonitor), not from here.
type monitorState struct {
	// secret and role are the monitor's Secret and DatabaseRole as this
	// pass left them.
	secret *corev1.Secret
	role   *cnpgv1.DatabaseRole
	// certGroupErr is why the certificate group's DatabaseRole could not
	// be kept (monitor_certgroup.go); Observe reports it after the monitor itself,
	// which it does not hold back.
	certGroupErr error
}

func (monitorComponent) Name() string            { return "monitor" }
func (monitorComponent) Condition() string       { return pgv1.ConditionMonitorReady }
func (monitorComponent) Requires() []contractKey { return []contractKey{contractCNPGCluster} }
func (monitorComponent) Provides() []contractKey { return nil }

func (monitorComponent) Reconcile(ctx context.Context, p *pass) error {
	secret, err := ensureMonitorSecret(ctx, p)
	if err != nil {
		return err
	}
	if secret, err = restampSecret(ctx, p, secret); err != nil {
		return err
	}
	p.monitor.secret = secret
	cur := p.obs.monitorRole
	if cur == nil && p.cluster.IsReplica() {
		// The claim asks Postgres, and nothing of this site logs in to a
		// replica (its roles are the primary's): the DatabaseRole is
		// created on promotion, when the replayed role carries setpoint's
		// marker for a PostgresCluster and is taken as ours.
		return nil
	}
	if cur != nil && !ownership.IsControlledBy(cur, p.cluster.UID) {
		// Never adopted: a DatabaseRole we did not create may name anyone's
		// Secret and reclaim policy.
		return p.owner().Conflict("DatabaseRole", cur)
	}
	now := p.deps.clock.Now()
	retry, _ := cnpgverdict.RetryDue(cur, now)
	retry = retry || triedBeforeHealthy(cur, p.contracts.CNPGCluster, now)
	if cur != nil && (cur.DeletionTimestamp != nil || monitorRoleCurrent(cur, p) && !retry) {
		p.monitor.role = cur
		p.monitor.certGroupErr = ensureCertGroup(ctx, p)
		return nil // Observe reports where CNPG stands
	}
	applied, err := applyMonitorRole(ctx, p, cur, retry)
	if err != nil {
		return err
	}
	p.monitor.role = applied
	p.monitor.certGroupErr = ensureCertGroup(ctx, p)
	return nil
}

// applyMonitorRole writes the monitor's DatabaseRole — claimed first when
// cur says it does not exist yet — with a retry mark when CNPG should try
// it again now.
func applyMonitorRole(ctx context.Context, p *pass, cur *cnpgv1.DatabaseRole, retry bool) (*cnpgv1.DatabaseRole, error) {
	if cur == nil {
		if err := claimMonitorRole(ctx, p); err != nil {
			return nil, err
		}
	}
	ac := monitorRoleApply(p)
	if retry {
		// CNPG's instance manager would try again only in its 30 s
		// (cnpgverdict.RetryDue, triedBeforeHealthy): ask it now.
		ac.WithAnnotations(cnpgverdict.RetryMark(p.deps.clock.Now()))
	}
	applied, err := p.deps.pg.CNPGV1().DatabaseRoles(p.cluster.Namespace).Apply(ctx, ac, applyOpts)
	if err != nil {
		return nil, fmt.Errorf("apply DatabaseRole %s: %w", naming.MonitorRoleObject(p.cluster.Name), err)
	}
	if err := revertRolePrivileges(ctx, p, cur, applied, []string{monitorGroup}); err != nil {
		return nil, err
	}
	if cur == nil {
		klog.FromContext(ctx).V(2).Info("Created monitor DatabaseRole", "databaseRole", klog.KObj(applied))
	}
	return applied, nil
}

// ensureMonitorSecret returns the monitor's Secret, created when absent:
// Create first, so that AlreadyExists tells us of a Secret our
// label-selected cache cannot see, which claim then judges.
func ensureMonitorSecret(ctx context.Context, p *pass) (*corev1.Secret, error) {
	client := p.deps.kube.CoreV1().Secrets(p.cluster.Namespace)
	name := naming.MonitorSecret(p.cluster.Name)
	if p.obs.monitorSecret == nil {
		created, err := client.Create(ctx, newMonitorSecret(p), metav1.CreateOptions{FieldManager: fieldManager})
		if err == nil {
			klog.FromContext(ctx).V(2).Info("Created monitor Secret", "secret", klog.KObj(created))
			return created, nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return nil, fmt.Errorf("create monitor secret: %w", err)
		}
	}
	return claim(ctx, p, "Secret", p.obs.monitorSecret, client, name)
}

func (monitorComponent) Observe(_ context.Context, p *pass, err error) health {
	if h, ok := conflictHealth(monitorConflictReason(err), err); ok {
		p.unpublishMonitor()
		return h
	}
	if h, ok := refusalHealth(err); ok {
		p.unpublishMonitor()
		return h
	}
	object := naming.MonitorRoleObject(p.cluster.Name)
	if err == nil && p.cluster.IsReplica() {
		// CNPG applies no DatabaseRole on a replica, and the role there is
		// the primary's, replayed, with the primary's password: nothing
		// logs in with this site's Secret until the cluster is promoted.
		p.unpublishMonitor()
		return ready(pgv1.ReasonMonitorRoleReplayed, fmt.Sprintf(
			"the cluster is a replica: role %s is its primary's, replayed; DatabaseRole %q is applied on promotion", naming.MonitorRole, object))
	}
	if errors.Is(err, errRoleUnverified) {
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonMonitorRoleUnverified, err.Error(), provisionRecheck)
	}
	if err != nil {
		return waiting(pgv1.PhasePending, pgv1.ReasonMonitorError, err.Error(), 0)
	}
	role := p.monitor.role
	if h, ok := monitorWait(role, p.monitor.secret, object); ok {
		// A role once published stays published while CNPG catches up
		// (a new password, a new generation): it still logs in.
		return h
	}
	p.resources().MonitorSecretRef = &pgv1.LocalObjectReference{Name: p.monitor.secret.Name}
	if h, ok := refusalHealth(p.monitor.certGroupErr); ok {
		return h
	}
	if p.monitor.certGroupErr != nil {
		return waiting(pgv1.PhasePending, pgv1.ReasonMonitorError, p.monitor.certGroupErr.Error(), 0)
	}
	return ready(pgv1.ReasonMonitorRoleApplied, fmt.Sprintf("role %s applied by CloudNativePG (DatabaseRole %q, Secret %q)",
		naming.MonitorRole, object, p.monitor.secret.Name))
}

// monitorConflictReason names what stands in the way: the Secret or the
// DatabaseRole.
func monitorConflictReason(err error) string {
	var c *ownership.ConflictError
	if errors.As(err, &c) && c.Kind == "Secret" {
		return pgv1.ReasonMonitorSecretConflict
	}
	return pgv1.ReasonMonitorRoleConflict
}

// monitorWait is the wait for CNPG while the role is not ready to log in
// as, and false once it is.
func monitorWait(role *cnpgv1.DatabaseRole, secret *corev1.Secret, object string) (health, bool) {
	st := role.Status
	switch {
	case role.DeletionTimestamp != nil:
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonMonitorRolePending,
			fmt.Sprintf("waiting for the previous DatabaseRole %q of role %s to be deleted", object, naming.MonitorRole), provisionRecheck), true
	case cnpgverdict.SecretNotYetReadable(role):
		// Its failure status wakes nobody (only what the cache drops
		// changes): look again when the next retry is due.
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonMonitorRolePending,
			fmt.Sprintf("role %s not yet applied by CloudNativePG (DatabaseRole %q): it may not read Secret %q yet (asked it to retry)",
				naming.MonitorRole, object, secret.Name), cnpgverdict.RetryPace), true
	case cnpgverdict.CNPGRefused(st.Applied):
		// CNPG retries on its own (and its status change wakes us); its
		// message is the user's clue.
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonMonitorRoleNotApplied,
			fmt.Sprintf("CloudNativePG could not apply role %s (DatabaseRole %q): %s", naming.MonitorRole, object, st.Message), eventRecheck), true
	case !monitorRoleReady(role, secret):
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonMonitorRolePending,
			fmt.Sprintf("role %s not yet applied by CloudNativePG (DatabaseRole %q)", naming.MonitorRole, object), provisionRecheck), true
	}
	return health{}, false
}

// unpublishMonitor takes the monitor's Secret out of status: a refused
// role is not one anybody should log in as.
func (p *pass) unpublishMonitor() {
	if r := p.status.Resources; r != nil {
		r.MonitorSecretRef = nil
	}
}
