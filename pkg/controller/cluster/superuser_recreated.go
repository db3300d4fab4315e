package cluster

import (
	corev1 "k8s.io/api/core/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/credentials"
)

// A superuser Secret missing while the CNPG Cluster it was made for
// exists was deleted: it is created with a new password, which CNPG sets
// on postgres (the Secret carries cnpg.io/reload), and that is said
// (credentials.RecreatedAtAnnotation). Its old password is nowhere else.

// superuserAnnotations are a new superuser Secret's annotations.
func superuserAnnotations(p *pass) map[string]string {
	at := p.deps.clock.Now()
	a := credentials.NewSecretRotation(p.cluster, at)
	if p.obs.cnpg != nil {
		a = credentials.MarkRecreated(a, at)
	}
	return a
}

// superuserRecreated reports a superuser Secret created again.
func superuserRecreated(p *pass, s *corev1.Secret) {
	if s.Annotations[credentials.RecreatedAtAnnotation] != "" {
		p.deps.recorder.Event(p.cluster, corev1.EventTypeWarning, pgv1.EventSecretRecreated, credentials.RecreatedEvent(s.Name, "postgres"))
	}
}
