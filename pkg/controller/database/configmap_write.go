package database

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// The connection ConfigMap is written by create and merge patch, not by
// server-side apply. Our cache holds only labelled ConfigMaps, so before
// writing one it cannot see, setpoint must learn from the API server that
// it does not exist. A create answers that and writes in one request:
// either it makes the ConfigMap — proof nothing was there — or it fails
// with AlreadyExists, and only then is the ConfigMap read and judged.
// (Server-side apply has no create-only precondition, so it needed a GET
// first: one request per database, almost always Not Found.) Later
// changes are merge patches guarded by the resourceVersion of what was
// judged, so they never land on an object replaced meanwhile.

// createConfigMap creates the connection ConfigMap; when one exists
// already it returns that one, read from the API server, with created
// false.
func (p *pass) createConfigMap(ctx context.Context, name, policy string, data map[string]string) (*corev1.ConfigMap, bool, error) {
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{
			Name: name, Namespace: p.db.Namespace,
			Labels:          ownership.ManagedLabels(ownership.DatabaseLabel, p.db.Name),
			Annotations:     map[string]string{policyAnnotation: policy},
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.db, gvk)},
		},
		Data: data,
	}
	client := p.deps.kube.CoreV1().ConfigMaps(p.db.Namespace)
	created, err := client.Create(ctx, cm, metav1.CreateOptions{FieldManager: fieldManager})
	if err == nil {
		return created, true, nil
	}
	if !apierrors.IsAlreadyExists(err) {
		return nil, false, fmt.Errorf("create ConfigMap %s: %w", name, err)
	}
	existing, err := client.Get(ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil, false, fmt.Errorf("read existing ConfigMap %s: %w", name, err)
	}
	return existing, false, nil
}

// patchConfigMap makes cur, proven ours or retained for us, what we
// publish: our labels, policy and controller reference (other references
// kept), exactly our data, no retained marks. live is cur as read from
// the API server by this pass, nil when cur came from the cache.
func (p *pass) patchConfigMap(ctx context.Context, cur *informers.CachedConfigMap, live *corev1.ConfigMap, policy string, data map[string]string) error {
	have, err := p.configMapData(ctx, cur, live)
	if err != nil {
		return err
	}
	body := map[string]any{
		"metadata": p.heldMetadata(cur, map[string]any{policyAnnotation: policy}),
		"data":     dataPatch(have, data),
	}
	patch, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("encode ConfigMap patch: %w", err)
	}
	return p.mergePatchConfigMap(ctx, cur.Name, patch)
}

// heldMetadata is the metadata of a merge patch that makes cur, proven
// ours or retained for us, ours as we write it: our labels and controller
// reference (other references kept), no retained marks, annotations
// besides; guarded by cur's resourceVersion, since a merge patch replaces
// the whole reference list.
func (p *pass) heldMetadata(cur metav1.Object, annotations map[string]any) map[string]any {
	refs := slices.DeleteFunc(slices.Clone(cur.GetOwnerReferences()), func(r metav1.OwnerReference) bool { return r.UID == p.db.UID })
	refs = append(refs, ownership.OwnerRef(p.db, gvk))
	labels := map[string]any{ownership.RetainedLabel: nil}
	for k, v := range ownership.ManagedLabels(ownership.DatabaseLabel, p.db.Name) {
		labels[k] = v
	}
	all := map[string]any{ownership.RetainedForAnnotation: nil, ownership.RetainedClusterAnnotation: nil}
	for k, v := range annotations {
		all[k] = v
	}
	return map[string]any{"resourceVersion": cur.GetResourceVersion(), "ownerReferences": refs,
		"labels": labels, "annotations": all}
}

// configMapData is cur's data. The cache keeps only a digest of it
// (informers.CachedConfigMap); the patch needs the keys to remove, so
// unless this pass read cur live, or it has no data, they are read from
// the API server — only when the data changed, which is rare. A ConfigMap
// replaced since cur was judged is not patched: the next pass judges the
// new one.
func (p *pass) configMapData(ctx context.Context, cur *informers.CachedConfigMap, live *corev1.ConfigMap) (map[string]string, error) {
	if live != nil {
		return live.Data, nil
	}
	if !cur.HasData() {
		return nil, nil
	}
	live, err := p.deps.kube.CoreV1().ConfigMaps(p.db.Namespace).Get(ctx, cur.Name, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read ConfigMap %s: %w", cur.Name, err)
	}
	if live.UID != cur.UID || live.ResourceVersion != cur.ResourceVersion {
		// As the patch's own precondition would answer.
		return nil, apierrors.NewConflict(corev1.Resource("configmaps"), cur.Name,
			fmt.Errorf("changed since it was judged (resourceVersion %s, cached %s)", live.ResourceVersion, cur.ResourceVersion))
	}
	return live.Data, nil
}

// releaseConfigMap hands cur over to a later PostgresDatabase of this
// name: our reference removed, the retained marks set, the policy Retain
// (whoever deletes it later decides); data kept.
func (p *pass) releaseConfigMap(ctx context.Context, cur *informers.CachedConfigMap) error {
	patch, err := p.owner().ReleasePatch(cur, map[string]string{policyAnnotation: string(pgv1.DeletionPolicyRetain)})
	if err != nil {
		return err
	}
	return p.mergePatchConfigMap(ctx, cur.Name, patch)
}

func (p *pass) mergePatchConfigMap(ctx context.Context, name string, patch []byte) error {
	_, err := p.deps.kube.CoreV1().ConfigMaps(p.db.Namespace).Patch(ctx, name, types.MergePatchType, patch,
		metav1.PatchOptions{FieldManager: fieldManager})
	if err != nil {
		return fmt.Errorf("patch ConfigMap %s: %w", name, err)
	}
	return nil
}

// dataPatch turns have into want: every key of want, and null for the
// keys we no longer publish.
func dataPatch[V any](have, want map[string]V) map[string]any {
	out := make(map[string]any, len(have)+len(want))
	for k := range have {
		out[k] = nil
	}
	for k, v := range want {
		out[k] = v
	}
	return out
}
