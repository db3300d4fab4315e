package cluster

import (
	"context"
	"encoding/json"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// ownSecret is one of the certificate Secrets as the component wants it.
type ownSecret struct {
	name        string
	typ         corev1.SecretType
	data        map[string][]byte
	annotations map[string]string // setpoint's: any other annotation is kept
	// drop are annotations of ours the Secret should no longer carry.
	drop []string
	// reload labels it for CNPG's instance manager to pick up a change
	// without a restart.
	reload bool
}

// writeOwnSecret creates the Secret, or rewrites cur's data (claim proved
// cur ours) at its resourceVersion.
func writeOwnSecret(ctx context.Context, p *pass, cur *corev1.Secret, w ownSecret) (*corev1.Secret, error) {
	client := p.deps.kube.CoreV1().Secrets(p.cluster.Namespace)
	labels := ownership.ManagedLabels(ownership.ClusterLabel, p.cluster.Name)
	if w.reload {
		labels[ownership.ReloadLabel] = "true"
	}
	if cur == nil {
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{
				Name: w.name, Namespace: p.cluster.Namespace, Labels: labels, Annotations: w.annotations,
				OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.cluster, gvk)},
			},
			Type: w.typ, Data: w.data,
		}
		created, err := client.Create(ctx, s, metav1.CreateOptions{FieldManager: fieldManager})
		if err != nil {
			return nil, fmt.Errorf("create Secret %s: %w", w.name, err)
		}
		return created, nil
	}
	// A merge patch carrying cur's resourceVersion: a change since it was
	// read is a Conflict (retried on a fresher read), and keys the Secret
	// should no longer hold are removed (null), so it is the whole data.
	data := map[string]any{}
	for k, v := range w.data {
		data[k] = v
	}
	for k := range cur.Data {
		if _, ok := w.data[k]; !ok {
			data[k] = nil
		}
	}
	ann := map[string]any{}
	for _, k := range w.drop {
		if _, ok := cur.Annotations[k]; ok {
			ann[k] = nil
		}
	}
	for k, v := range w.annotations {
		ann[k] = v
	}
	body, err := json.Marshal(map[string]any{
		"metadata": map[string]any{"resourceVersion": cur.ResourceVersion, "labels": labels, "annotations": ann},
		"data":     data,
	})
	if err != nil {
		return nil, fmt.Errorf("patch Secret %s: %w", w.name, err)
	}
	patched, err := client.Patch(ctx, w.name, types.MergePatchType, body, metav1.PatchOptions{FieldManager: fieldManager})
	if err != nil {
		return nil, fmt.Errorf("patch Secret %s: %w", w.name, err)
	}
	return patched, nil
}
