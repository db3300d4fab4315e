package cnpgsim

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// ensurePgBouncer keeps the Deployment CNPG runs a Pooler's PgBouncer in:
// named after the Pooler, controlled by it, with CNPG's labels
// (cnpg.io/cluster, cnpg.io/poolerName, cnpg.io/podRole=pooler) and its
// replicas. Nothing here runs Pods, so the stand-in also writes the status
// a Deployment controller would once PgBouncer is up — every replica
// available at once — and returns the replicas it reports, which CNPG
// copies into the Pooler's status.instances (Pods created, not ready:
// internal/controller/pooler_status.go). A Deployment left by a deleted
// Pooler of the same name is the garbage collector's to remove: ok is
// false until it has, and the caller looks again shortly (CNPG is woken by
// the deletion; the stand-in does not watch Deployments).
func (s *Simulator) ensurePgBouncer(ctx context.Context, p *cnpgv1.Pooler, owner []metav1.OwnerReference) (replicas int32, ok bool, err error) {
	replicas = 1
	if p.Spec.Instances != nil {
		replicas = *p.Spec.Instances
	}
	client := s.kube.AppsV1().Deployments(p.Namespace)
	d, err := client.Get(ctx, p.Name, metav1.GetOptions{})
	switch {
	case apierrors.IsNotFound(err):
		if d, err = client.Create(ctx, pgBouncerDeployment(p, replicas, owner), metav1.CreateOptions{FieldManager: s.opts.FieldManager}); err != nil {
			return 0, false, fmt.Errorf("create PgBouncer Deployment: %w", err)
		}
	case err != nil:
		return 0, false, fmt.Errorf("get PgBouncer Deployment: %w", err)
	case !metav1.IsControlledBy(d, p):
		return 0, false, nil
	case *d.Spec.Replicas != replicas:
		d.Spec.Replicas = &replicas
		if d, err = client.Update(ctx, d, metav1.UpdateOptions{FieldManager: s.opts.FieldManager}); err != nil {
			return 0, false, fmt.Errorf("scale PgBouncer Deployment: %w", err)
		}
	}
	want := appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: replicas, UpdatedReplicas: replicas,
		ReadyReplicas: replicas, AvailableReplicas: replicas}
	if equality.Semantic.DeepEqual(d.Status, want) {
		return replicas, true, nil
	}
	d.Status = want
	if _, err := client.UpdateStatus(ctx, d, metav1.UpdateOptions{FieldManager: s.opts.FieldManager}); err != nil {
		return 0, false, fmt.Errorf("update PgBouncer Deployment status: %w", err)
	}
	return replicas, true, nil
}

func pgBouncerDeployment(p *cnpgv1.Pooler, replicas int32, owner []metav1.OwnerReference) *appsv1.Deployment {
	selector := map[string]string{"cnpg.io/poolerName": p.Name}
	labels := map[string]string{"cnpg.io/poolerName": p.Name, "cnpg.io/cluster": p.Spec.Cluster.Name, "cnpg.io/podRole": "pooler"}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: p.Name, Namespace: p.Namespace, Labels: labels, OwnerReferences: owner},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: selector},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "pgbouncer", Image: "pgbouncer"}}},
			},
		},
	}
}
