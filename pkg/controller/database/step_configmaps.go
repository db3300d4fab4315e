package database

import (
	"context"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// configMapsStep publishes, per database, what an application needs to
// connect: endpoints, port, database and user names, and where the
// credentials and the CA are (the ConfigMap); and per role that logs in
// a Service Binding Secret with all of it in one place (binding_write.go).
type configMapsStep struct{}

// configMapsState is where each database's ConfigMap stands, in spec
// order, as Reconcile left it.
type configMapsState struct{ databases []dbOutcome }

func (configMapsStep) Name() string      { return pgv1.ConditionConfigMapsReady }
func (configMapsStep) Condition() string { return pgv1.ConditionConfigMapsReady }

func (configMapsStep) Reconcile(ctx context.Context, p *pass) error {
	outs := make([]dbOutcome, 0, len(p.db.Spec.Databases))
	for _, d := range p.db.Spec.Databases {
		h := p.ensureConfigMap(ctx, d)
		if h.Phase == pgv1.PhaseReady {
			h = p.ensureBindings(ctx, d)
		}
		outs = append(outs, dbOutcome{name: d.Name, h: h})
	}
	p.configMaps = configMapsState{databases: outs}
	return nil
}

func (configMapsStep) Observe(_ context.Context, p *pass, _ error) health {
	if h := p.report(p.configMaps.databases); h.Phase != pgv1.PhaseReady {
		return h
	}
	return ready(pgv1.ReasonConfigMapsReady, fmt.Sprintf("connection info of %d database(s) published", len(p.db.Spec.Databases)))
}

func (p *pass) ensureConfigMap(ctx context.Context, d pgv1.DatabaseSpec) health {
	n := namesOf(p.db, d.Name)
	e := p.entry(d.Name)
	extras := extraLogins(d, n, e)
	data := connectionData(p.obs.cluster.Namespace, p.obs.cluster, n, e, extras)
	if certAuth(d) {
		certData(data, p.obs.cluster.Name, n, e, extras)
	}
	policy := string(policyOf(d))
	cur := p.obs.configMaps[n.ConfigMap]
	// live is the ConfigMap as the API server has it, when this pass read
	// it: the patch then needs no second read of its data.
	var live *corev1.ConfigMap
	if cur == nil {
		// Not in our cache: the create proves it absent, or reads it.
		existing, created, err := p.createConfigMap(ctx, n.ConfigMap, policy, data)
		if err != nil {
			return apiError(pgv1.ReasonConfigMapWriteFailed, err)
		}
		if created {
			e.ConfigMapRef = &pgv1.LocalObjectReference{Name: n.ConfigMap}
			return ready("", "")
		}
		cur, live = informers.CachedConfigMapOf(existing), existing
	}
	if conflict := p.owner().Check("ConfigMap", cur); conflict != nil {
		return conflict.Health(pgv1.ReasonConfigMapConflict)
	}
	if !configMapCurrent(cur, p.db, data, policy) {
		// Also adopts a ConfigMap retained for us: the patch drops the
		// retained marks and adds our reference.
		if err := p.patchConfigMap(ctx, cur, live, policy, data); err != nil {
			return apiError(pgv1.ReasonConfigMapWriteFailed, err)
		}
	}
	e.ConfigMapRef = &pgv1.LocalObjectReference{Name: n.ConfigMap}
	return ready("", "")
}

// configMapCurrent: ours, not marked retained, with the data and policy
// we want — nothing to apply.
func configMapCurrent(cm *informers.CachedConfigMap, db *pgv1.PostgresDatabase, data map[string]string, policy string) bool {
	_, retained := cm.Labels[ownership.RetainedLabel]
	return ownership.IsControlledBy(cm, db.UID) && !retained &&
		ownership.HasLabels(cm.Labels, ownership.ManagedLabels(ownership.DatabaseLabel, db.Name)) &&
		cm.Annotations[policyAnnotation] == policy && cm.DataEqual(data)
}

// connectionData is the content of a database's connection ConfigMap:
// the fixed roles' keys, and those of extras, the extra login roles.
func connectionData(namespace string, pc *pgv1.PostgresCluster, n names, e *pgv1.DatabaseStatus, extras []extraLogin) map[string]string {
	d := map[string]string{
		naming.KeyHost:        naming.Host(namespace, naming.RWService(pc.Name)),
		naming.KeyROHost:      naming.Host(namespace, naming.ROService(pc.Name)),
		naming.KeyPort:        strconv.Itoa(postgres.Port),
		naming.KeyDatabase:    n.DB,
		naming.KeyAdminUser:   n.AdminRole,
		naming.KeyRWUser:      n.RWRole,
		naming.KeyCASecret:    naming.ServerCASecret(pc.Name),
		naming.KeyCASecretKey: naming.CACertKey,
		naming.KeySSLMode:     naming.SSLMode,
	}
	if e.AdminSecretRef != nil {
		d[naming.KeyAdminSecret] = e.AdminSecretRef.Name
	}
	if e.RWSecretRef != nil {
		d[naming.KeyRWSecret] = e.RWSecretRef.Name
	}
	if e.ROSecretRef != nil { // set only while readOnlyRole is
		d[naming.KeyROUser] = n.RORole
		d[naming.KeyROSecret] = e.ROSecretRef.Name
	}
	for _, x := range extras {
		user, secret, _ := naming.RoleKeys(x.name)
		d[user], d[secret] = x.role, x.secret
	}
	if ps := pc.Status.ConnectionPoolerStatus; ps != nil && ps.Enabled {
		d[naming.KeyPoolerHost] = naming.Host(namespace, naming.PoolerRW(pc.Name))
		d[naming.KeyPoolerROHost] = naming.Host(namespace, naming.PoolerRO(pc.Name))
	}
	return d
}

// extraLogin is an extra login role of a database as its ConfigMap names
// it: its name in spec.roles, its Postgres role, its password Secret.
type extraLogin struct{ name, role, secret string }

// extraLogins are the login roles of d's spec.roles (credentialsOf) that
// the database's status entry lists present with their Secret: the
// ConfigMap names a role once its credentials are resolved, as it names
// the fixed roles.
func extraLogins(d pgv1.DatabaseSpec, n names, e *pgv1.DatabaseStatus) []extraLogin {
	var out []extraLogin
	for _, c := range credentialsOf(d, n) {
		if c.extra == nil || c.generated == "" {
			continue // a fixed role, or a group without login
		}
		for _, r := range e.Roles {
			if r.Name == c.role && r.Ensure == pgv1.RoleEnsurePresent && r.PasswordSecretRef != nil {
				out = append(out, extraLogin{name: c.kind, role: c.role, secret: r.PasswordSecretRef.Name})
			}
		}
	}
	return out
}

// policyOf is a database's deletionPolicy; the CRD defaults it to Delete.
func policyOf(d pgv1.DatabaseSpec) pgv1.DeletionPolicy {
	if d.DeletionPolicy == "" {
		return pgv1.DeletionPolicyDelete
	}
	return d.DeletionPolicy
}
