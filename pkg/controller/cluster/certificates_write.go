package cluster

import (
	"context"
	"fmt"
	"maps"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// ownSecret is one of the certificate Secrets as the component wants it.
type ownSecret struct {
	name        string
	typ         corev1.SecretType
	data        map[string][]byte
	annotations map[string]string // setpoint's: any other annotation is kept
	// reload labels it for CNPG's instance manager to pick up a change
	// without a restart.
	reload bool
}

// writeOwnSecret creates the Secret, or updates cur (which claim proved
// ours) at its resourceVersion: a change since it was read is a
// Conflict, retried on a fresher read. The key material is generated, so
// the write is a whole-object one, never a merge with someone else's.
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
	next := cur.DeepCopy()
	next.Data = w.data
	next.Labels = mergedStrings(next.Labels, labels)
	next.Annotations = mergedStrings(next.Annotations, nil)
	delete(next.Annotations, replacedCATrustedUntil)
	maps.Copy(next.Annotations, w.annotations)
	updated, err := client.Update(ctx, next, metav1.UpdateOptions{FieldManager: fieldManager})
	if err != nil {
		return nil, fmt.Errorf("update Secret %s: %w", w.name, err)
	}
	return updated, nil
}

func mergedStrings(into, from map[string]string) map[string]string {
	if into == nil {
		into = map[string]string{}
	}
	maps.Copy(into, from)
	return into
}
