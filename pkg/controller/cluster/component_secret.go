package cluster

import (
	"context"
	"crypto/rand"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// secretComponent provides the superuser Secret: generated once as
// <cluster>-superuser and never regenerated, or an external one validated.
type secretComponent struct{}

func (secretComponent) Name() string            { return "secret" }
func (secretComponent) Condition() string       { return pgv1.ConditionSecretReady }
func (secretComponent) Requires() []contractKey { return nil }
func (secretComponent) Provides() []contractKey { return []contractKey{contractSecret} }

func (secretComponent) Reconcile(ctx context.Context, p *pass) error {
	if p.want.ExternalSuperSec != "" || p.obs.secret != nil {
		return adoptSecret(ctx, p)
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: p.name(superuserSuffix), Namespace: p.cluster.Namespace,
			Labels:          superuserLabels(p.cluster.Name),
			OwnerReferences: []metav1.OwnerReference{controller.OwnerRef(p.cluster, gvk)},
		},
		Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte("postgres"), "password": []byte(rand.Text())},
	}
	created, err := p.deps.kube.CoreV1().Secrets(s.Namespace).Create(ctx, s, metav1.CreateOptions{FieldManager: fieldManager})
	if apierrors.IsAlreadyExists(err) {
		// Our cache was behind: use the existing one, never a new password.
		created, err = p.deps.kube.CoreV1().Secrets(s.Namespace).Get(ctx, s.Name, metav1.GetOptions{})
	}
	if err != nil {
		return fmt.Errorf("create superuser secret: %w", err)
	}
	p.obs.secret = created
	p.deps.recorder.Event(p.cluster, corev1.EventTypeNormal, "SecretCreated", "Created superuser Secret "+s.Name)
	return nil
}

// adoptSecret puts our owner reference on a generated Secret that lost it
// (a Retain deletion kept it for a later cluster of the same name).
func adoptSecret(ctx context.Context, p *pass) error {
	s := p.obs.secret
	if p.want.ExternalSuperSec != "" || s == nil || controller.IsControlledBy(s, p.cluster.UID) {
		return nil
	}
	if metav1.GetControllerOfNoCopy(s) != nil {
		return nil // someone else's: Observe reports it
	}
	patch := fmt.Sprintf(`{"metadata":{"ownerReferences":[{"apiVersion":%q,"kind":%q,"name":%q,"uid":%q,"controller":true,"blockOwnerDeletion":true}]}}`,
		gvk.GroupVersion().String(), gvk.Kind, p.cluster.Name, p.cluster.UID)
	adopted, err := p.deps.kube.CoreV1().Secrets(s.Namespace).Patch(ctx, s.Name, typesMerge, []byte(patch), metav1.PatchOptions{FieldManager: fieldManager})
	if err != nil {
		return fmt.Errorf("adopt superuser secret: %w", err)
	}
	p.obs.secret = adopted
	return nil
}

func (secretComponent) Observe(_ context.Context, p *pass, err error) health {
	if err != nil {
		return waiting(pgv1.PhasePending, "SecretError", err.Error(), 0)
	}
	if name := p.want.ExternalSuperSec; name != "" {
		s := p.obs.external
		switch {
		case s == nil:
			return failedWait("SuperuserSecretNotFound", fmt.Sprintf("external superuser Secret %q not found", name))
		case string(s.Data["username"]) != "postgres":
			return failedWait("SuperuserSecretInvalid", fmt.Sprintf("external superuser Secret %q must have username \"postgres\"", name))
		case len(s.Data["password"]) == 0:
			return failedWait("SuperuserSecretInvalid", fmt.Sprintf("external superuser Secret %q has no password", name))
		}
		p.contracts.Secret = s
		return ready("ExternalSecretValid", fmt.Sprintf("using external superuser Secret %q", name))
	}
	s := p.obs.secret
	if s == nil {
		return waiting(pgv1.PhasePending, "SecretMissing", "superuser Secret not created yet", 0)
	}
	if !controller.IsControlledBy(s, p.cluster.UID) {
		return failed("SecretConflict", fmt.Sprintf("Secret %q is controlled by another object", s.Name))
	}
	p.contracts.Secret = s
	return ready("SecretReady", fmt.Sprintf("superuser Secret %q", s.Name))
}

// failedWait is Failed with a slow recheck: the fix (creating a Secret we
// do not watch) produces no event for us.
func failedWait(reason, message string) health {
	h := failed(reason, message)
	h.requeueAfter = externalRecheck
	return h
}

func superuserLabels(cluster string) map[string]string {
	l := controller.ManagedLabels(controller.ClusterLabel, cluster)
	l[controller.ReloadLabel] = "true"
	return l
}
