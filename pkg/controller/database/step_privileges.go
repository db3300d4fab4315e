package database

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// privilegesStep grants, per database, what CNPG cannot: <db>_rw may
// connect, use schema public, read and write its tables and sequences, and
// — through default privileges — whatever <db>_admin creates there later;
// <db>_ro (readOnlyRole) the same, read only.
//
// A converged object costs no SQL: once PrivilegesReady is True for the
// current generation the grants are not run again. Drift (someone revoking
// a grant by hand) is therefore not corrected until the spec changes or an
// earlier step stops being ready, which resets the condition.
func privilegesStep(ctx context.Context, p *pass) health {
	if controller.ConditionTrue(p.db.Status.Conditions, pgv1.ConditionPrivilegesReady, p.db.Generation) {
		c := meta.FindStatusCondition(p.db.Status.Conditions, pgv1.ConditionPrivilegesReady)
		return ready(c.Reason, c.Message)
	}
	for _, d := range p.db.Spec.Databases {
		n := namesOf(p.db.Name, d.Name)
		t, err := p.superuser(ctx, n.DB)
		if err != nil {
			p.problem(d.Name, err.Error())
			return waiting(pgv1.PhaseProvisioning, "SuperuserUnavailable", err.Error(), sqlRecheck)
		}
		if err := p.c.sql.execTx(ctx, t, grantPlan(n, controller.PostgresMarker(p.db.Namespace, p.db.Name), d.ReadOnlyRole)); err != nil {
			p.c.cas.Forget(p.db.Namespace, p.obs.cluster.Name+caSuffix) // in case the CA rotated
			msg := fmt.Sprintf("grant privileges on database %s: %v", n.DB, err)
			p.problem(d.Name, msg)
			return waiting(pgv1.PhaseProvisioning, "GrantFailed", msg, sqlRecheck)
		}
		klog.FromContext(ctx).V(2).Info("Granted privileges", "database", n.DB, "role", n.RWRole)
	}
	return ready("PrivilegesGranted", fmt.Sprintf("privileges granted on %d database(s)", len(p.db.Spec.Databases)))
}

// superuser is the connection target of database as the cluster's
// superuser, whose Secret the cluster names in its status.
func (p *pass) superuser(ctx context.Context, database string) (postgres.Target, error) {
	pc := p.obs.cluster
	if pc.Status.Resources == nil || pc.Status.Resources.SuperUserSecretRef == nil {
		return postgres.Target{}, fmt.Errorf("PostgresCluster %q has not published its superuser Secret", pc.Name)
	}
	name := pc.Status.Resources.SuperUserSecretRef.Name
	s, err := controller.IgnoreNotFound(p.c.secrets.Secrets(pc.Namespace).Get(name))
	if err == nil && s == nil {
		// An external superuser Secret is not labelled ours, so not cached.
		s, err = controller.IgnoreNotFound(p.c.kube.CoreV1().Secrets(pc.Namespace).Get(ctx, name, metav1.GetOptions{}))
	}
	if err != nil {
		return postgres.Target{}, fmt.Errorf("read superuser Secret %s: %w", name, err)
	}
	if s == nil {
		return postgres.Target{}, fmt.Errorf("superuser Secret %q not found", name)
	}
	ca, err := p.c.cas.Get(ctx, pc.Namespace, pc.Name+caSuffix)
	if err != nil {
		return postgres.Target{}, err
	}
	if len(ca) == 0 {
		return postgres.Target{}, fmt.Errorf("CA Secret %q not available yet", pc.Name+caSuffix)
	}
	return postgres.Target{
		Namespace: pc.Namespace, Cluster: pc.Name, Database: database,
		User: string(s.Data["username"]), Password: string(s.Data["password"]), CACert: ca,
	}, nil
}
