package database

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
)

// secretsStep gives every database's roles a credential Secret —
// generated once and rewritten only by a rotation request, or the user's
// own, validated — for the roles step's DatabaseRoles.
type secretsStep struct{}

// secretsState is where each database's credentials stand, in spec
// order, as Reconcile left them.
type secretsState struct{ databases []dbOutcome }

func (secretsStep) Name() string      { return pgv1.ConditionSecretsReady }
func (secretsStep) Condition() string { return pgv1.ConditionSecretsReady }

func (secretsStep) Reconcile(ctx context.Context, p *pass) error {
	p.createMissingSecrets(ctx)
	outs := make([]dbOutcome, 0, len(p.db.Spec.Databases))
	for _, d := range p.db.Spec.Databases {
		outs = append(outs, dbOutcome{name: d.Name, h: p.databaseCredentials(ctx, d)})
	}
	p.recordRotation()
	p.secrets = secretsState{databases: outs}
	return nil
}

func (secretsStep) Observe(_ context.Context, p *pass, _ error) health {
	if h := p.report(p.secrets.databases); h.Phase != pgv1.PhaseReady {
		return h
	}
	return ready(pgv1.ReasonSecretsReady, fmt.Sprintf("credentials of %d database(s) in place", len(p.db.Spec.Databases))+recreatedNote(p))
}

// presentRole is the intent for one role; exists is kept from the last
// pass until the roles step reads CNPG's report again.
func presentRole(e *pgv1.DatabaseStatus, role, secret string) pgv1.RoleStatus {
	r := pgv1.RoleStatus{Name: role, Ensure: pgv1.RoleEnsurePresent}
	if secret != "" {
		r.PasswordSecretRef = &pgv1.LocalObjectReference{Name: secret}
	}
	for _, old := range e.Roles {
		if old.Name == role && old.Ensure == pgv1.RoleEnsurePresent {
			r.Exists = old.Exists
		}
	}
	return r
}

func externalAdmin(d pgv1.DatabaseSpec) string {
	if d.PasswordConfig != nil && d.PasswordConfig.AdminSecretRef != nil {
		return d.PasswordConfig.AdminSecretRef.Name
	}
	return ""
}

func externalRW(d pgv1.DatabaseSpec) string {
	if d.PasswordConfig != nil && d.PasswordConfig.RWSecretRef != nil {
		return d.PasswordConfig.RWSecretRef.Name
	}
	return ""
}

// credential ensures the Secret of one role and reports its name in ref.
func (p *pass) credential(ctx context.Context, role, generated, external string, ref *string) health {
	if external != "" {
		*ref = external
		return validateExternal(p.obs.external[external], external, role)
	}
	*ref = generated
	s := p.obs.secrets[generated]
	if s == nil {
		var err error
		if s, err = p.createSecret(ctx, generated, role); err != nil {
			return apiError(pgv1.ReasonSecretCreateFailed, err)
		}
		p.obs.secrets[generated] = s // what a rotation in this pass starts from
	}
	return p.claimSecret(ctx, s, role)
}

// createSecret creates a generated credential. When the Secret exists
// already (our cache was behind, or a Retain deletion kept it) the
// existing one is returned: a password is never regenerated.
func (p *pass) createSecret(ctx context.Context, name, role string) (*corev1.Secret, error) {
	labels := ownership.ManagedLabels(ownership.DatabaseLabel, p.db.Name)
	labels[ownership.ReloadLabel] = "true"
	// A password generated now answers a pending rotation request.
	at := p.deps.clock.Now()
	annotations := credentials.NewSecretRotation(p.db, at)
	recreating := wasIssued(p, role, name)
	if recreating {
		annotations = credentials.MarkRecreated(annotations, at)
	}
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: p.db.Namespace, Labels: labels,
			Annotations:     annotations,
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.db, gvk)},
		},
		Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{
			corev1.BasicAuthUsernameKey: []byte(role),
			corev1.BasicAuthPasswordKey: []byte(rand.Text()),
		},
	}
	client := p.deps.kube.CoreV1().Secrets(p.db.Namespace)
	created, err := client.Create(ctx, s, metav1.CreateOptions{FieldManager: fieldManager})
	if apierrors.IsAlreadyExists(err) {
		if created, err = client.Get(ctx, name, metav1.GetOptions{}); err != nil {
			return nil, fmt.Errorf("read existing secret %s: %w", name, err)
		}
		return created, nil
	}
	if err != nil {
		return nil, fmt.Errorf("create secret %s: %w", name, err)
	}
	klog.FromContext(ctx).V(2).Info("Created Secret", "secret", klog.KObj(created), "role", role, "recreated", recreating)
	if recreating {
		p.deps.recorder.Event(p.db, corev1.EventTypeWarning, pgv1.EventSecretRecreated, credentials.RecreatedEvent(name, role))
	}
	return created, nil
}

// claimSecret accepts a generated Secret that is ours, adopts one a
// Retain deletion left for a PostgresDatabase of this name on this
// cluster, and refuses anything else (ownership.Claim, the same proof the
// cluster's children pass).
func (p *pass) claimSecret(ctx context.Context, s *corev1.Secret, role string) health {
	client := p.deps.kube.CoreV1().Secrets(s.Namespace)
	cur, adopted, err := ownership.Claim(ctx, p.owner(), ownership.OwnerRef(p.db, gvk), "Secret", s, client, s.Name, fieldManager)
	var conflict *ownership.ConflictError
	switch {
	case errors.As(err, &conflict):
		return conflict.Health(pgv1.ReasonSecretConflict)
	case err != nil:
		return apiError(pgv1.ReasonSecretAdoptFailed, err)
	case adopted:
		p.deps.recorder.Eventf(p.db, corev1.EventTypeNormal, pgv1.EventSecretAdopted, "Adopted retained Secret %s", cur.Name)
	}
	if msg := invalidCredential(cur, role); msg != "" {
		return failed(pgv1.ReasonSecretInvalid, fmt.Sprintf("Secret %q: %s", cur.Name, msg), failedRecheck)
	}
	return ready("", "")
}

// validateExternal checks a user's Secret the way CNPG will use it.
func validateExternal(s *corev1.Secret, name, role string) health {
	if s == nil {
		return failed(pgv1.ReasonExternalSecretNotFound, fmt.Sprintf("external Secret %q for role %s not found", name, role), externalRecheck)
	}
	if msg := invalidCredential(s, role); msg != "" {
		return failed(pgv1.ReasonExternalSecretInvalid, fmt.Sprintf("external Secret %q: %s", name, msg), externalRecheck)
	}
	return ready("", "")
}

// invalidCredential explains why s cannot serve as role's password Secret,
// or returns "". It never quotes the password.
func invalidCredential(s *corev1.Secret, role string) string {
	switch {
	case s.Type != corev1.SecretTypeBasicAuth:
		return fmt.Sprintf("type is %q, want %q", s.Type, corev1.SecretTypeBasicAuth)
	case string(s.Data[corev1.BasicAuthUsernameKey]) != role:
		return fmt.Sprintf("key %q must be the role name %q", corev1.BasicAuthUsernameKey, role)
	case len(s.Data[corev1.BasicAuthPasswordKey]) == 0:
		return fmt.Sprintf("key %q is missing or empty", corev1.BasicAuthPasswordKey)
	}
	return ""
}

// worst picks the health a step reports: Failed before an API error
// before a wait; Ready only when all are.
func worst(hs []health) health {
	rank := func(h health) int {
		switch {
		case h.Phase == pgv1.PhaseFailed:
			return 3
		case h.Err != nil:
			return 2
		case h.Phase != pgv1.PhaseReady:
			return 1
		}
		return 0
	}
	out := ready("", "")
	for _, h := range hs {
		if rank(h) > rank(out) {
			out = h
		}
	}
	return out
}
