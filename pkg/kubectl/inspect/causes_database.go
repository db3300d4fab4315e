package inspect

import (
	"context"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// databaseCauses looks at the children behind a database's unmet
// condition. For ClusterReady the cluster is explained in turn.
func (r Reader) databaseCauses(ctx context.Context, db *pgv1.PostgresDatabase, condition string) ([]Cause, *Explanation, error) {
	switch condition {
	case pgv1.ConditionClusterReady:
		return r.clusterCause(ctx, db.Spec.ClusterRef.Name)
	case pgv1.ConditionSecretsReady:
		causes, err := r.secretCauses(ctx, db)
		return causes, nil, err
	case pgv1.ConditionConfigMapsReady:
		causes, err := children(ctx, "ConfigMap", configMapsOf(db), r.Kube.CoreV1().ConfigMaps(r.Namespace).Get,
			func(cm *corev1.ConfigMap) string {
				return notSetpoints(cm, "PostgresDatabase", db.Name, string(db.UID))
			})
		return causes, nil, err
	case pgv1.ConditionRolesReady:
		causes, err := r.roleCauses(ctx, db.Spec.ClusterRef.Name, rolesOf(db))
		return causes, nil, err
	case pgv1.ConditionDatabasesReady:
		causes, err := r.cnpgDatabaseCauses(ctx, db)
		return causes, nil, err
	}
	// PrivilegesReady is SQL setpoint runs itself: no child object has a
	// status of its own, the condition's message is the cause.
	return nil, nil, nil
}

func (r Reader) clusterCause(ctx context.Context, name string) ([]Cause, *Explanation, error) {
	c, err := r.PG.PostgresV1alpha1().PostgresClusters(r.Namespace).Get(ctx, name, getOpts)
	if ok, err := found(err, "PostgresCluster "+name); !ok {
		return []Cause{{Object: "PostgresCluster " + name, Status: "not found"}}, nil, err
	}
	e, err := r.explainClusterObject(ctx, c)
	if err != nil {
		return nil, nil, err
	}
	status := orNone(string(c.Status.Phase))
	if e.Condition != nil {
		status += fmt.Sprintf(" (%s: %s)", e.Condition.Reason, e.Condition.Message)
	}
	return []Cause{{Object: "PostgresCluster " + name, Status: status}}, e, nil
}

// roleCauses reports each role's DatabaseRole that CNPG has not applied,
// with CNPG's own message.
func (r Reader) roleCauses(ctx context.Context, cluster string, roles []string) ([]Cause, error) {
	var names []string
	for _, role := range roles {
		names = append(names, naming.RoleObject(cluster, role))
	}
	return children(ctx, "DatabaseRole", names, r.PG.CNPGV1().DatabaseRoles(r.Namespace).Get,
		func(o *cnpgv1.DatabaseRole) string {
			return applied(o.Status.Applied, o.Status.ObservedGeneration, o.Generation, o.Status.Message)
		})
}

func (r Reader) cnpgDatabaseCauses(ctx context.Context, db *pgv1.PostgresDatabase) ([]Cause, error) {
	var names []string
	for _, d := range db.Spec.Databases {
		names = append(names, naming.Database(db.Name, d.Name).CNPG)
	}
	return children(ctx, "Database.postgresql.cnpg.io", names, r.PG.CNPGV1().Databases(r.Namespace).Get,
		func(o *cnpgv1.Database) string {
			return applied(o.Status.Applied, o.Status.ObservedGeneration, o.Generation, o.Status.Message)
		})
}

// secretCauses reports each role's Secret that is missing, and each
// generated one (not the user's, which passwordConfig names) that exists
// and is not setpoint's: the cause of SecretConflict.
func (r Reader) secretCauses(ctx context.Context, db *pgv1.PostgresDatabase) ([]Cause, error) {
	generated, theirs := secretsOf(db)
	get := r.Kube.CoreV1().Secrets(r.Namespace).Get
	causes, err := children(ctx, "Secret", generated, get,
		func(s *corev1.Secret) string { return notSetpoints(s, "PostgresDatabase", db.Name, string(db.UID)) })
	if err != nil {
		return nil, err
	}
	more, err := children(ctx, "Secret", theirs, get, exists)
	return append(causes, more...), err
}

// secretsOf are the Secrets each role's password is read from: those
// setpoint generates, and the user's that passwordConfig names.
func secretsOf(db *pgv1.PostgresDatabase) (generated, theirs []string) {
	for _, d := range db.Spec.Databases {
		n := naming.Database(db.Name, d.Name)
		for _, r := range RolesOf(db.Name, d) {
			if slices.Contains(n.Secrets(), r.Secret) {
				generated = append(generated, r.Secret)
			} else {
				theirs = append(theirs, r.Secret)
			}
		}
	}
	return generated, theirs
}

func configMapsOf(db *pgv1.PostgresDatabase) []string {
	var out []string
	for _, d := range db.Spec.Databases {
		out = append(out, naming.Database(db.Name, d.Name).ConfigMap)
	}
	return out
}

func rolesOf(db *pgv1.PostgresDatabase) []string {
	var out []string
	for _, d := range db.Spec.Databases {
		for _, r := range RolesOf(db.Name, d) {
			out = append(out, r.Name)
		}
	}
	return out
}

// Role is one role a database spec asks for, with its Secret.
type Role struct {
	Kind   string // admin, rw or ro
	Name   string
	Secret string
}

// RolesOf are the roles of database d of PostgresDatabase pgdb, as
// docs/concepts/roles-and-credentials.md describes them: <db>_admin and <db>_rw, <db>_ro with
// readOnlyRole, each with passwordConfig's Secret or the generated one.
func RolesOf(pgdb string, d pgv1.DatabaseSpec) []Role {
	n := naming.Database(pgdb, d.Name)
	pc := d.PasswordConfig
	if pc == nil {
		pc = &pgv1.DatabasePasswordConfig{}
	}
	pick := func(ref *pgv1.LocalObjectReference, generated string) string {
		if ref != nil && ref.Name != "" {
			return ref.Name
		}
		return generated
	}
	roles := []Role{
		{Kind: "admin", Name: n.AdminRole, Secret: pick(pc.AdminSecretRef, n.AdminSecret)},
		{Kind: "rw", Name: n.RWRole, Secret: pick(pc.RWSecretRef, n.RWSecret)},
	}
	if d.ReadOnlyRole {
		roles = append(roles, Role{Kind: "ro", Name: n.RORole, Secret: pick(pc.ROSecretRef, n.ROSecret)})
	}
	return roles
}
