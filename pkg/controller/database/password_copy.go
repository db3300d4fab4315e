package database

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// CloudNativePG reads a role's password from a Secret of the cluster's
// namespace; the app reads it from its own. Across namespaces the
// tenant's Secret (generated or the user's) is the one source of truth,
// and this is its copy on the cluster side: username and password only,
// labelled the tenant's (ownership.TenantLabels) and cnpg.io/reload, so
// CloudNativePG applies a changed password at once. A rotation writes the
// tenant's Secret; the same pass's roles step copies it here before the
// DatabaseRole is judged, so the role waits for CNPG to apply the copy.

// ensureCopy keeps the copy of tenant Secret name current, proving it
// ours before every write, and reports Ready once it is. In one
// namespace there is no copy.
func (p *pass) ensureCopy(ctx context.Context, name string) health {
	if name == "" || !crossNamespace(p.db) {
		return ready("", "")
	}
	src := p.obs.secrets[name]
	if src == nil {
		src = p.obs.external[name]
	}
	if src == nil {
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonRolesPending, fmt.Sprintf("waiting for Secret %q to copy it to namespace %s", name, clusterNS(p.db)), provisionRecheck)
	}
	cur := p.obs.copies[name]
	if conflict := p.checkClusterSide("Secret", cur); conflict != nil {
		return conflict.Health(pgv1.ReasonSecretConflict)
	}
	want := copyOf(p.db, src, passwordCopy(p.db, name))
	if cur != nil && copyCurrent(cur, want) {
		return ready("", "")
	}
	client := p.deps.kube.CoreV1().Secrets(clusterNS(p.db))
	var out *corev1.Secret
	var err error
	if cur == nil {
		out, err = client.Create(ctx, want, metav1.CreateOptions{FieldManager: fieldManager})
		if apierrors.IsAlreadyExists(err) {
			// Our cache has not seen it, or someone else has the name:
			// judged as the cache would have, before anything is written.
			live, gerr := client.Get(ctx, want.Name, metav1.GetOptions{})
			if gerr != nil {
				return apiError(pgv1.ReasonSecretCreateFailed, fmt.Errorf("read existing Secret %s/%s: %w", clusterNS(p.db), want.Name, gerr))
			}
			if conflict := p.checkClusterSide("Secret", live); conflict != nil {
				return conflict.Health(pgv1.ReasonSecretConflict)
			}
			cur, err = live, nil
		}
	}
	if cur != nil && err == nil {
		out, err = patchCopy(ctx, client, cur, want)
	}
	if err != nil {
		return apiError(pgv1.ReasonSecretCreateFailed, fmt.Errorf("copy Secret %s to %s/%s: %w", name, clusterNS(p.db), want.Name, err))
	}
	p.obs.copies[name] = out
	return ready("", "")
}

// copyOf is the copy of src, named name in the cluster's namespace.
func copyOf(db *pgv1.PostgresDatabase, src *corev1.Secret, name string) *corev1.Secret {
	labels := clusterSideLabels(db)
	labels[ownership.ReloadLabel] = "true"
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: clusterNS(db), Labels: labels},
		Type:       corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{
			corev1.BasicAuthUsernameKey: src.Data[corev1.BasicAuthUsernameKey],
			corev1.BasicAuthPasswordKey: src.Data[corev1.BasicAuthPasswordKey],
		},
	}
}

// copyCurrent: cur holds want's credentials and labels.
func copyCurrent(cur, want *corev1.Secret) bool {
	for k, v := range want.Labels {
		if cur.Labels[k] != v {
			return false
		}
	}
	return cur.Type == want.Type &&
		bytes.Equal(cur.Data[corev1.BasicAuthUsernameKey], want.Data[corev1.BasicAuthUsernameKey]) &&
		bytes.Equal(cur.Data[corev1.BasicAuthPasswordKey], want.Data[corev1.BasicAuthPasswordKey])
}

// deleteCopies deletes the copies of the tenant Secrets names that are
// ours: a deleted or removed database, whatever its deletionPolicy (the
// tenant's Secret, the source, is what Retain keeps).
func (p *pass) deleteCopies(ctx context.Context, names []string) error {
	for _, name := range names {
		s := p.obs.copies[name]
		if s == nil || !ownsClusterSide(s, p.db) {
			continue
		}
		if err := p.deps.kube.CoreV1().Secrets(clusterNS(p.db)).Delete(ctx, s.Name, ownership.DeleteOf(s)); err != nil && !apierrors.IsNotFound(err) {
			return fmt.Errorf("delete Secret %s/%s: %w", clusterNS(p.db), s.Name, err)
		}
	}
	return nil
}

// copiesOf are the tenant Secrets of database name (names n) whose copies
// may be on the cluster side: the generated ones of every role setpoint
// may have made for it, and the user's Secrets the spec names.
func (p *pass) copiesOf(name string, n names) []string {
	out := secretsOf(n, p.obs.roleNames[name])
	for _, d := range p.db.Spec.Databases {
		if d.Name == name {
			out = append(out, externalRefs(d)...)
		}
	}
	return out
}

// patchCopy writes want's labels and credentials over cur, a copy proven
// ours: the patch carries cur's resourceVersion, so a copy replaced since
// is refused by conflict, never overwritten.
func patchCopy(ctx context.Context, client typedcorev1.SecretInterface, cur, want *corev1.Secret) (*corev1.Secret, error) {
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": cur.ResourceVersion, "labels": want.Labels},
		"data":     want.Data,
	})
	if err != nil {
		return nil, err
	}
	return client.Patch(ctx, cur.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
}
