package cluster

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/credentials"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// secretComponent provides the superuser Secret while superuser access is
// on (superuser_access.go): generated once as <cluster>-superuser and never
// regenerated, or an external one validated. While it is off there is no
// superuser Secret, and a generated one is deleted (superuser_retire.go).
type secretComponent struct{}

// secretState is what the secret component keeps in one pass, between its
// Reconcile and its Observe (pass.secret; its files alone write it). Later
// components read the superuser Secret through the Secret contract.
type secretState struct {
	// superuser is the superuser Secret as this pass left it (the
	// snapshot keeps what was read).
	superuser *corev1.Secret
	// retiring is our superuser Secret while access is off and the CNPG
	// Cluster still has it (superuser_retire.go).
	retiring *corev1.Secret
}

func (secretComponent) Name() string            { return "secret" }
func (secretComponent) Condition() string       { return pgv1.ConditionSecretReady }
func (secretComponent) Requires() []contractKey { return nil }
func (secretComponent) Provides() []contractKey { return []contractKey{contractSecret} }

func (secretComponent) Reconcile(ctx context.Context, p *pass) error {
	if !p.want.Superuser {
		return retireSuperuser(ctx, p)
	}
	if p.want.ExternalSuperSec != "" {
		return nil // the user's Secret: only read, never written
	}
	client := p.deps.kube.CoreV1().Secrets(p.cluster.Namespace)
	name := naming.SuperuserSecret(p.cluster.Name)
	if p.obs.secret == nil {
		// Create first: AlreadyExists then tells us something exists that
		// our label-selected cache cannot see.
		created, err := client.Create(ctx, newSuperuserSecret(p), metav1.CreateOptions{FieldManager: fieldManager})
		if err == nil {
			klog.FromContext(ctx).V(2).Info("Created superuser Secret", "secret", klog.KObj(created))
			superuserRecreated(p, created)
			p.secret.superuser = created
			return nil
		}
		if !apierrors.IsAlreadyExists(err) {
			return fmt.Errorf("create superuser secret: %w", err)
		}
	}
	// Ours, or retained for this cluster (never a new password), or
	// someone else's: then it is refused.
	cur, err := claim(ctx, p, "Secret", p.obs.secret, client, name)
	if err != nil {
		return err
	}
	if cur, err = restampSecret(ctx, p, cur); err != nil {
		return err
	}
	p.secret.superuser, err = rotateSuperuser(ctx, p, client, cur)
	return err
}

func newSuperuserSecret(p *pass) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: naming.SuperuserSecret(p.cluster.Name), Namespace: p.cluster.Namespace,
			Labels: superuserLabels(p.cluster.Name),
			// A password generated now answers a pending rotation request.
			Annotations:     superuserAnnotations(p),
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.cluster, gvk)},
		},
		Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte("postgres"), "password": []byte(rand.Text())},
	}
}

func (secretComponent) Observe(_ context.Context, p *pass, err error) health {
	if h, ok := conflictHealth(pgv1.ReasonSecretConflict, err); ok {
		return h
	}
	if err != nil {
		return waiting(pgv1.PhasePending, pgv1.ReasonSecretError, err.Error(), 0)
	}
	if !p.want.Superuser {
		return superuserOff(p)
	}
	if name := p.want.ExternalSuperSec; name != "" {
		s := p.obs.external
		switch {
		case s == nil:
			return failedWait(pgv1.ReasonSuperuserSecretNotFound, fmt.Sprintf("external superuser Secret %q not found", name))
		case string(s.Data["username"]) != "postgres":
			return failedWait(pgv1.ReasonSuperuserSecretInvalid, fmt.Sprintf("external superuser Secret %q must have username \"postgres\"", name))
		case len(s.Data["password"]) == 0:
			return failedWait(pgv1.ReasonSuperuserSecretInvalid, fmt.Sprintf("external superuser Secret %q has no password", name))
		}
		p.contracts.Secret = s
		recordSuperuserRotation(p, s, name)
		return ready(pgv1.ReasonExternalSecretValid, fmt.Sprintf("using external superuser Secret %q", name))
	}
	s := p.secret.superuser
	if s == nil {
		return waiting(pgv1.PhasePending, pgv1.ReasonSecretMissing, "superuser Secret not created yet", 0)
	}
	p.contracts.Secret = s
	recordSuperuserRotation(p, s, "")
	return ready(pgv1.ReasonSecretReady, fmt.Sprintf("superuser Secret %q", s.Name)+credentials.RecreatedNote(s))
}

// failedWait is Failed with a slow recheck: the fix (creating a Secret we
// do not watch) produces no event for us.
func failedWait(reason, message string) health {
	h := failed(reason, message)
	h.RequeueAfter = externalRecheck
	return h
}

// conflictHealth is the health of a component whose write err refused
// (see ownership.ConflictError.Health), and false for any other error.
func conflictHealth(reason string, err error) (health, bool) {
	var conflict *ownership.ConflictError
	if !errors.As(err, &conflict) {
		return health{}, false
	}
	return conflict.Health(reason), true
}

func superuserLabels(cluster string) map[string]string {
	l := ownership.ManagedLabels(ownership.ClusterLabel, cluster)
	l[ownership.ReloadLabel] = "true"
	return l
}

// Release keeps the superuser Secret for a later cluster of the name: the
// retained CNPG Cluster still uses it.
func (secretComponent) Release(ctx context.Context, t *teardown) error {
	return releaseChild(ctx, t, "Secret", t.obs.secret, t.deps.kube.CoreV1().Secrets(t.pc.Namespace).Patch)
}
