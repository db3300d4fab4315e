package cluster

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/credentials"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// rotateSuperuser answers the cluster's rotation request on the generated
// superuser Secret s, which is ours: a new password and the request id in
// one write (see credentials.EnsureRotated), done at most once per
// request. CNPG applies it through the Secret's cnpg.io/reload label.
func rotateSuperuser(ctx context.Context, p *pass, client typedcorev1.SecretInterface, s *corev1.Secret) (*corev1.Secret, error) {
	request := credentials.RotationRequest(p.cluster)
	if request == "" {
		return s, nil
	}
	out, rotated, err := credentials.EnsureRotated(ctx, client, s, request, fieldManager, p.deps.clock.Now())
	if err != nil {
		return s, err
	}
	if rotated {
		klog.FromContext(ctx).Info("Rotated superuser password", "secret", klog.KObj(out), "request", request)
	}
	return out, nil
}

// recordSuperuserRotation puts the superuser Secret's last rotation in
// status, and the PasswordRotation condition while a request is set.
// external is the user's Secret name, "" for the generated one.
func recordSuperuserRotation(p *pass, s *corev1.Secret, external string) {
	request := credentials.RotationRequest(p.cluster)
	p.status.SuperuserPasswordRotation = nil
	if external == "" && s != nil {
		p.status.SuperuserPasswordRotation = credentials.RotationOf(s)
	}
	if request == "" {
		meta.RemoveStatusCondition(&p.status.Conditions, pgv1.ConditionPasswordRotation)
		return
	}
	status, reason := false, pgv1.ReasonRotationPending
	msg := fmt.Sprintf("request %q: superuser password not rotated yet", request)
	switch {
	case !p.want.Superuser:
		// Nothing can log in as postgres over the network: the request
		// is met as it stands.
		status, reason = true, pgv1.ReasonNoSuperuserPassword
		msg = fmt.Sprintf("request %q: superuser access is off, so there is no superuser password to rotate", request)
	case external != "":
		reason = pgv1.ReasonExternalSecretNotRotated
		msg = fmt.Sprintf("request %q: the superuser Secret %q is external; setpoint never writes it, rotate it yourself", request, external)
	case s != nil && credentials.RotationDone(s, request):
		status, reason = true, pgv1.ReasonRotated
		msg = fmt.Sprintf("request %q: superuser password rotated", request)
	}
	pipeline.SetCondition(&p.status.Conditions, p.cluster.Generation, pgv1.ConditionPasswordRotation, status, reason, msg)
}
