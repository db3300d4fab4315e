package controller

import (
	"fmt"

	corelisters "k8s.io/client-go/listers/core/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/caches"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// MonitorRole is the Postgres role setpoint's own checks log in as, so
// that they need no superuser: a member of pg_monitor, which reads every
// catalog and statistics view the checks use (pg_roles, pg_database and
// their comments, pg_settings, pg_stat_activity, pg_stat_replication, the
// WAL directory's size) and can write nothing. The PostgresCluster
// controller creates it per cluster, as a CNPG DatabaseRole
// (MonitorRoleObject) with its own generated Secret, and publishes that
// Secret in status.resources.monitorSecretRef once CNPG has applied it.
const MonitorRole = "setpoint_monitor"

// MonitorRoleObject is the name of the DatabaseRole of cluster's
// MonitorRole: named as a database's roles are (naming.RoleObject), which
// no database's role can collide with, since those all end in _admin, _rw
// or _ro. Its Secret is naming.MonitorSecret.
func MonitorRoleObject(cluster string) string { return naming.RoleObject(cluster, MonitorRole) }

// MonitorTarget is how to reach pc's primary, database database, as
// MonitorRole: with the Secret status.resources.monitorSecretRef names,
// read from secrets (it is labelled ours, so the cache holds it), and ca,
// the cluster's CA certificate. It fails while the cluster has not
// published the Secret — CNPG has not applied the role yet — and when the
// Secret named is not the monitor's of this PostgresCluster (status can be
// edited; a password is sent only where setpoint put it).
func MonitorTarget(pc *pgv1.PostgresCluster, secrets corelisters.SecretLister, ca []byte, database string) (postgres.Target, error) {
	r := pc.Status.Resources
	if r == nil || r.MonitorSecretRef == nil {
		return postgres.Target{}, fmt.Errorf("PostgresCluster %q has not published the Secret of role %s yet", pc.Name, MonitorRole)
	}
	name := r.MonitorSecretRef.Name
	s, err := caches.IgnoreNotFound(secrets.Secrets(pc.Namespace).Get(name))
	switch {
	case err != nil:
		return postgres.Target{}, fmt.Errorf("read Secret %s of role %s: %w", name, MonitorRole, err)
	case s == nil:
		return postgres.Target{}, fmt.Errorf("Secret %q of role %s not found", name, MonitorRole)
	case !ownership.IsControlledBy(s, pc.UID) || string(s.Data["username"]) != MonitorRole:
		return postgres.Target{}, fmt.Errorf("Secret %q is not the Secret setpoint generated for role %s of PostgresCluster %q", name, MonitorRole, pc.Name)
	case len(ca) == 0:
		return postgres.Target{}, fmt.Errorf("CA Secret of PostgresCluster %q not available yet", pc.Name)
	}
	return postgres.Target{
		Namespace: pc.Namespace, Cluster: pc.Name, Database: database,
		User: MonitorRole, Password: string(s.Data["password"]), CACert: ca,
	}, nil
}
