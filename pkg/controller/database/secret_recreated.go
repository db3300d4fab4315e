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

// roleExisted: the last pass saw role in Postgres (CNPG's report, kept in
// this object's status), so a Secret gave it a password before and a
// missing Secret now is a deleted one. Status only decides whether to
// say so: the Secret is created either way.
func roleExisted(db *pgv1.PostgresDatabase, role string) bool {
	for _, e := range db.Status.Databases {
		if slices.ContainsFunc(e.Roles, func(r pgv1.RoleStatus) bool { return r.Name == role && r.Exists }) {
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
