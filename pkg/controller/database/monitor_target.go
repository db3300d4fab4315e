package database

import (
	"fmt"

	corelisters "k8s.io/client-go/listers/core/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// monitorTarget is how to reach pc's primary, database database, as
// naming.MonitorRole: with the Secret status.resources.monitorSecretRef names,
// read from secrets (it is labelled ours, so the cache holds it), and ca,
// the cluster's CA certificate. It fails while the cluster has not
// published the Secret — CNPG has not applied the role yet — and when the
// Secret named is not the monitor's of this PostgresCluster (status can be
// edited; a password is sent only where setpoint put it).
func monitorTarget(pc *pgv1.PostgresCluster, secrets corelisters.SecretLister, ca []byte, database string) (postgres.Target, error) {
	r := pc.Status.Resources
	if r == nil || r.MonitorSecretRef == nil {
		return postgres.Target{}, fmt.Errorf("PostgresCluster %q has not published the Secret of role %s yet", pc.Name, naming.MonitorRole)
	}
	name := r.MonitorSecretRef.Name
	s, err := informers.IgnoreNotFound(secrets.Secrets(pc.Namespace).Get(name))
	switch {
	case err != nil:
		return postgres.Target{}, fmt.Errorf("read Secret %s of role %s: %w", name, naming.MonitorRole, err)
	case s == nil:
		return postgres.Target{}, fmt.Errorf("Secret %q of role %s not found", name, naming.MonitorRole)
	case !ownership.IsControlledBy(s, pc.UID) || string(s.Data["username"]) != naming.MonitorRole:
		return postgres.Target{}, fmt.Errorf("Secret %q is not the Secret setpoint generated for role %s of PostgresCluster %q", name, naming.MonitorRole, pc.Name)
	case len(ca) == 0:
		return postgres.Target{}, fmt.Errorf("CA Secret of PostgresCluster %q not available yet", pc.Name)
	}
	return postgres.Target{
		Namespace: pc.Namespace, Cluster: pc.Name, Database: database,
		User: naming.MonitorRole, Password: string(s.Data["password"]), CACert: ca,
	}, nil
}
