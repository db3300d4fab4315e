package database

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// setpoint's SQL logs in as the least privileged identity that can do
// each job: a database's <db>_admin, its owner, for grants and revokes;
// the cluster's setpoint_monitor (pg_monitor) for the checks of what
// exists in Postgres — reading pg_database, pg_roles and their comments
// needs no superuser. The superuser serves only a cluster whose monitor
// role is not in place yet, while superuser access is on (an earlier
// setpoint's cluster being upgraded).

// asAdmin is the target of database d as its <db>_admin, with the password
// of the Secret the secrets step validated, or by certificate.
func (p *pass) asAdmin(ctx context.Context, d pgv1.DatabaseSpec, n names) (postgres.Target, error) {
	if certAuth(d) {
		return p.asAdminByCert(ctx, n)
	}
	name := n.AdminSecret
	s := p.obs.secrets[name]
	if ext := externalAdmin(d); ext != "" {
		name, s = ext, p.obs.external[ext]
	}
	if s == nil {
		return postgres.Target{}, fmt.Errorf("Secret %q of role %s not found", name, n.AdminRole)
	}
	return p.target(ctx, n.DB, s)
}

// monitor is the target of database postgres as the cluster's
// setpoint_monitor, or as its superuser while the cluster names no
// monitor Secret yet.
func (p *pass) monitor(ctx context.Context) (postgres.Target, error) {
	pc := p.obs.cluster
	res := pc.Status.Resources
	if res != nil && res.MonitorSecretRef == nil && res.SuperUserSecretRef != nil {
		return p.clusterSecretTarget(ctx, res.SuperUserSecretRef.Name)
	}
	ca, err := p.deps.cas.Get(ctx, pc.Namespace, naming.CASecret(pc.Name))
	if err != nil {
		return postgres.Target{}, err
	}
	return monitorTarget(pc, p.deps.secrets, ca, "postgres")
}

// clusterSecretTarget logs in to database postgres with the cluster's
// superuser Secret name: ours (cached), or a user's external one.
func (p *pass) clusterSecretTarget(ctx context.Context, name string) (postgres.Target, error) {
	ns := p.obs.cluster.Namespace
	s, err := informers.IgnoreNotFound(p.deps.secrets.Secrets(ns).Get(name))
	if err == nil && s == nil {
		// An external superuser Secret is not labelled ours, so not cached.
		s, err = informers.IgnoreNotFound(p.deps.kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{}))
	}
	if err != nil {
		return postgres.Target{}, fmt.Errorf("read Secret %s: %w", name, err)
	}
	if s == nil {
		return postgres.Target{}, fmt.Errorf("Secret %q not found", name)
	}
	return p.target(ctx, "postgres", s)
}

// target logs in to database with the basic-auth Secret s, TLS verified
// against the cluster's CA.
func (p *pass) target(ctx context.Context, database string, s *corev1.Secret) (postgres.Target, error) {
	return p.targetAs(ctx, database, string(s.Data[corev1.BasicAuthUsernameKey]), string(s.Data[corev1.BasicAuthPasswordKey]))
}

// targetAs logs in to database as user (password empty for a login by
// certificate), TLS verified against the cluster's CA.
func (p *pass) targetAs(ctx context.Context, database, user, password string) (postgres.Target, error) {
	pc := p.obs.cluster
	ca, err := p.deps.cas.Get(ctx, pc.Namespace, naming.CASecret(pc.Name))
	if err != nil {
		return postgres.Target{}, err
	}
	if len(ca) == 0 {
		return postgres.Target{}, fmt.Errorf("CA Secret %q not available yet", naming.CASecret(pc.Name))
	}
	return postgres.Target{
		Namespace: pc.Namespace, Cluster: pc.Name, Database: database,
		User: user, Password: password, CACert: ca,
	}, nil
}
