package database

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/credentials"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// A generated Secret found missing is created with a new password: the
// deleted one cannot be recovered, and refusing would leave applications
// that start or reconnect with no credentials at all. What matters is
// that the change is not silent (credentials.RecreatedAtAnnotation).

// wasIssued: a Secret of this name gave role a password before, so a
// missing one now is a deleted one. Either Postgres has had the role for
// this object — our DatabaseRole of it names this Secret and CloudNativePG
// applied it, or the last pass saw it (kept in this object's status) — or
// the last pass listed this very Secret as the role's password. The second
// signal holds while CNPG re-applies the role (Exists is then false for a
// while), when the first alone would miss a deletion. This decides only whether to say so: the Secret is created
// either way.
func wasIssued(p *pass, role, secret string) bool {
	cur := p.obs.roles[naming.RoleObject(p.db.Spec.ClusterRef.Name, role)]
	if cur != nil && ownsClusterSide(cur, p.db) && roleApplied(cur) &&
		cur.Spec.PasswordSecret != nil && cur.Spec.PasswordSecret.Name == passwordCopy(p.db, secret) {
		return true
	}
	for _, e := range p.db.Status.Databases {
		if slices.ContainsFunc(e.Roles, func(r pgv1.RoleStatus) bool {
			// A role listed without a Secret (an extra role without
			// login) had no password to lose.
			return r.Name == role && r.PasswordSecretRef != nil && (r.Exists || r.PasswordSecretRef.Name == secret)
		}) {
			return true
		}
	}
	return false
}

// recreatedNote names the generated Secrets of this object that were
// created again, for the SecretsReady message.
func recreatedNote(p *pass) string {
	var marked []*corev1.Secret
	for _, d := range p.db.Spec.Databases {
		for _, c := range credentialsOf(d, namesOf(p.db, d.Name)) {
			if c.external == "" && c.generated != "" {
				marked = append(marked, p.obs.secrets[c.generated])
			}
		}
	}
	return credentials.RecreatedNote(marked...)
}
