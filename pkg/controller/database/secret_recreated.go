package database

import (
	"slices"

	corev1 "k8s.io/api/core/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// A generated Secret found missing is created with a new password: the
// deleted one cannot be recovered, and refusing would leave applications
// that start or reconnect with no credentials at all. What matters is
// that the change is not silent (controller.RecreatedAtAnnotation).

// wasIssued: a Secret of this name gave role a password before, so a
// missing one now is a deleted one. Either Postgres has had the role for
// this object — the cluster gave it to this object and CloudNativePG
// reports it reconciled, or the last pass saw it (kept in this object's
// status) — or the last pass listed this very Secret as the role's
// password. The second signal holds while CNPG re-reconciles the role
// (Exists is then false for a while), when the first alone would miss a
// deletion. This decides only whether to say so: the Secret is created
// either way.
func wasIssued(p *pass, role, secret string) bool {
	ours := slices.ContainsFunc(p.obs.roles.owners, func(o pgv1.RoleOwner) bool { return o.Role == role && o.Owner.UID == p.db.UID })
	if ours && slices.Contains(p.obs.roles.reconciled, role) {
		return true
	}
	for _, e := range p.db.Status.Databases {
		if slices.ContainsFunc(e.Roles, func(r pgv1.RoleStatus) bool {
			return r.Name == role && (r.Exists || r.PasswordSecretRef != nil && r.PasswordSecretRef.Name == secret)
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
		for _, c := range credentialsOf(d, namesOf(p.db.Name, d.Name)) {
			if c.external == "" {
				marked = append(marked, p.obs.secrets[c.generated])
			}
		}
	}
	return controller.RecreatedNote(marked...)
}
