package database

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// Each role that logs in gets a Service Binding Secret beside its
// credential Secret and the database's ConfigMap (binding_data.go holds
// its entries). It is written like the ConfigMap: created when absent
// (the create proves it), else judged and merge-patched under the
// resourceVersion judged; never written over a Secret that is not ours.
// The configMaps step writes them after the ConfigMap; a rotation writes
// the rotated role's again in its own pass (rebindRotated), so the
// binding never keeps a password the credential Secret no longer has.

// certExpirationAnnotation on a certificate role's binding Secret is the
// expiration CloudNativePG reported (DatabaseRole status) for the
// certificate the binding holds. CNPG's certificate Secret is not ours,
// so not cached: it is read only when the two differ, at issue and at
// each renewal.
const certExpirationAnnotation = "postgres.setpoint.dev/client-cert-expiration"

// ensureBindings writes the binding Secret of every role of d that logs
// in.
func (p *pass) ensureBindings(ctx context.Context, d pgv1.DatabaseSpec) health {
	n := namesOf(p.db, d.Name)
	var hs []health
	for _, c := range credentialsOf(d, n) {
		if c.generated != "" || c.external != "" {
			hs = append(hs, p.ensureBinding(ctx, d, n, c))
		}
	}
	return worst(hs)
}

// rebindRotated writes the binding of role c again right after a rotation
// of its password, when the binding exists already: the configMaps step
// makes new ones, and may not run in this pass (a cluster that is gone).
func (p *pass) rebindRotated(ctx context.Context, d pgv1.DatabaseSpec, c roleCredential) health {
	n := namesOf(p.db, d.Name)
	if p.obs.secrets[n.Binding(c.kind)] == nil {
		return ready("", "")
	}
	return p.ensureBinding(ctx, d, n, c)
}

// ensureBinding makes role c's binding Secret what bindingData says.
func (p *pass) ensureBinding(ctx context.Context, d pgv1.DatabaseSpec, n names, c roleCredential) health {
	name := n.Binding(c.kind)
	cur := p.obs.secrets[name]
	if h := p.checkBinding(cur); h.Phase != pgv1.PhaseReady {
		return h
	}
	src, expiration, err := p.bindingSourceOf(ctx, d, c, cur)
	if err != nil {
		return apiError(pgv1.ReasonBindingSecretWriteFailed, err)
	}
	if src == nil {
		return ready("", "") // no credential yet: the secrets step says why
	}
	data := bindingData(*src)
	annotations := map[string]string{}
	if expiration != "" {
		annotations[certExpirationAnnotation] = expiration
	}
	if cur == nil {
		created, existing, err := p.createBinding(ctx, name, data, annotations)
		switch {
		case err != nil:
			return apiError(pgv1.ReasonBindingSecretWriteFailed, err)
		case created != nil:
			p.obs.secrets[name] = created
			return ready("", "")
		}
		if h := p.checkBinding(existing); h.Phase != pgv1.PhaseReady {
			return h
		}
		cur = existing
	}
	if bindingCurrent(cur, p.db, data, annotations) {
		return ready("", "")
	}
	out, err := p.patchBinding(ctx, cur, data, annotations)
	if err != nil {
		return apiError(pgv1.ReasonBindingSecretWriteFailed, err)
	}
	p.obs.secrets[name] = out
	return ready("", "")
}

// checkBinding refuses a binding Secret that is not ours (nor retained
// for us), or not of the binding type (a Secret's type cannot change).
func (p *pass) checkBinding(cur *corev1.Secret) health {
	if cur == nil {
		return ready("", "")
	}
	if conflict := p.owner().Check("Secret", cur); conflict != nil {
		return conflict.Health(pgv1.ReasonBindingSecretConflict)
	}
	if cur.Type != naming.BindingSecretType {
		return failed(pgv1.ReasonBindingSecretConflict, fmt.Sprintf("Secret %q has type %q, a binding Secret must have type %q, which cannot be changed: delete it and setpoint creates it again",
			cur.Name, cur.Type, naming.BindingSecretType), failedRecheck)
	}
	return ready("", "")
}

// bindingSourceOf gathers role c's binding: nil when its credential
// Secret is not there (the secrets step reports it). A certificate
// role's certificate is cur's while CNPG reports the expiration cur
// records, else read from CNPG's Secret, issued for our DatabaseRole;
// expiration is the one the binding then holds.
func (p *pass) bindingSourceOf(ctx context.Context, d pgv1.DatabaseSpec, c roleCredential, cur *corev1.Secret) (*bindingSource, string, error) {
	cluster, ns := p.db.Spec.ClusterRef.Name, p.db.Namespace
	n := namesOf(p.db, d.Name)
	src := &bindingSource{host: naming.Host(ns, naming.RWService(cluster)), database: n.DB, user: c.role, ca: p.obs.serverCA}
	if !certAuth(d) {
		cred := p.obs.secrets[c.generated]
		if c.external != "" {
			cred = p.obs.external[c.external]
		}
		if cred == nil {
			return nil, "", nil
		}
		src.password = cred.Data[corev1.BasicAuthPasswordKey]
		if src.password == nil {
			src.password = []byte{}
		}
		if pc := p.obs.cluster; pc != nil && pc.Status.ConnectionPoolerStatus != nil && pc.Status.ConnectionPoolerStatus.Enabled {
			src.poolerHost = naming.Host(ns, naming.PoolerRW(cluster))
		}
		return src, "", nil
	}
	object := naming.RoleObject(cluster, c.role)
	role := p.obs.roles[object]
	if role == nil || !ownership.IsControlledBy(role, p.db.UID) || role.Status.ClientCertificate == nil || role.Status.ClientCertificate.Expiration == "" {
		return src, "", nil // not issued yet: the DatabaseRole's status wakes us when it is
	}
	expiration := role.Status.ClientCertificate.Expiration
	if cur != nil && cur.Annotations[certExpirationAnnotation] == expiration && len(cur.Data[corev1.TLSCertKey]) > 0 {
		src.cert, src.key = cur.Data[corev1.TLSCertKey], cur.Data[corev1.TLSPrivateKeyKey]
		return src, expiration, nil
	}
	secret := naming.ClientCertSecret(object)
	s, err := informers.IgnoreNotFound(p.deps.kube.CoreV1().Secrets(ns).Get(ctx, secret, metav1.GetOptions{}))
	if err != nil {
		return nil, "", fmt.Errorf("read client certificate Secret %s: %w", secret, err)
	}
	// A key is copied only from the Secret CNPG issued for our
	// DatabaseRole, never from a same-named one of anyone's.
	if s == nil || !ownership.IsControlledBy(s, role.UID) {
		return src, "", nil
	}
	src.cert, src.key = s.Data[corev1.TLSCertKey], s.Data[corev1.TLSPrivateKeyKey]
	return src, expiration, nil
}

// bindingCurrent: ours, not marked retained, with exactly the data and
// annotation we want — nothing to write.
func bindingCurrent(s *corev1.Secret, db *pgv1.PostgresDatabase, data map[string][]byte, annotations map[string]string) bool {
	_, retained := s.Labels[ownership.RetainedLabel]
	return ownership.IsControlledBy(s, db.UID) && !retained &&
		ownership.HasLabels(s.Labels, ownership.ManagedLabels(ownership.DatabaseLabel, db.Name)) &&
		s.Annotations[certExpirationAnnotation] == annotations[certExpirationAnnotation] &&
		maps.EqualFunc(s.Data, data, bytes.Equal)
}

// createBinding creates a binding Secret; when one exists already it
// returns that one, read from the API server, and created nil.
func (p *pass) createBinding(ctx context.Context, name string, data map[string][]byte, annotations map[string]string) (created, existing *corev1.Secret, err error) {
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: p.db.Namespace,
			Labels:          ownership.ManagedLabels(ownership.DatabaseLabel, p.db.Name),
			Annotations:     annotations,
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.db, gvk)},
		},
		Type: naming.BindingSecretType,
		Data: data,
	}
	client := p.deps.kube.CoreV1().Secrets(p.db.Namespace)
	created, err = client.Create(ctx, s, metav1.CreateOptions{FieldManager: fieldManager})
	if err == nil {
		klog.FromContext(ctx).V(2).Info("Created binding Secret", "secret", klog.KObj(created))
		return created, nil, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, nil, fmt.Errorf("create Secret %s: %w", name, err)
	}
	if existing, err = client.Get(ctx, name, metav1.GetOptions{}); err != nil {
		return nil, nil, fmt.Errorf("read existing Secret %s: %w", name, err)
	}
	return nil, existing, nil
}

// patchBinding makes cur, proven ours or retained for us, the binding we
// publish: exactly data, our metadata (heldMetadata). A Secret replaced
// since it was judged fails the patch's resourceVersion guard.
func (p *pass) patchBinding(ctx context.Context, cur *corev1.Secret, data map[string][]byte, annotations map[string]string) (*corev1.Secret, error) {
	a := map[string]any{certExpirationAnnotation: nil}
	for k, v := range annotations {
		a[k] = v
	}
	patch, err := json.Marshal(map[string]any{"metadata": p.heldMetadata(cur, a), "data": dataPatch(cur.Data, data)})
	if err != nil {
		return nil, fmt.Errorf("encode Secret patch: %w", err)
	}
	// The patch holds the password: never quote it, name the Secret.
	out, err := p.deps.kube.CoreV1().Secrets(p.db.Namespace).Patch(ctx, cur.Name, mergePatch, patch, metav1.PatchOptions{FieldManager: fieldManager})
	if err != nil {
		return nil, fmt.Errorf("patch Secret %s: %w", cur.Name, err)
	}
	return out, nil
}
