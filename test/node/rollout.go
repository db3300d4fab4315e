package node

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// revisionAnnotation is where the Deployment controller numbers a
// Deployment and its ReplicaSets.
const revisionAnnotation = "deployment.kubernetes.io/revision"

// WaitAvailable waits until Deployment ns/name has rolled out: all its
// replicas available from its newest template, and no Pod of an older
// one left, terminating ones included. Availability alone is not enough
// after an apply that changes the template: the old Pods keep the
// Deployment available while the new ones start, and an operator's old
// Pod may still be leading (a real-tier upgrade test once ran its
// "before" half against the release it meant to upgrade to).
func WaitAvailable(ctx context.Context, client kubernetes.Interface, ns, name string) error {
	var last string
	err := wait.PollUntilContextCancel(ctx, 500*time.Millisecond, true, func(ctx context.Context) (bool, error) {
		d, err := client.AppsV1().Deployments(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			last = err.Error()
			return false, nil
		}
		want := ptr.Deref(d.Spec.Replicas, 1)
		last = fmt.Sprintf("%d of %d available, %d updated", d.Status.AvailableReplicas, want, d.Status.UpdatedReplicas)
		if d.Status.ObservedGeneration != d.Generation || d.Status.AvailableReplicas != want || d.Status.UpdatedReplicas != want {
			return false, nil
		}
		stale, err := olderPods(ctx, client, d)
		if err != nil {
			last = err.Error()
			return false, nil
		}
		if stale > 0 {
			last = fmt.Sprintf("%d Pod(s) of an older revision still there", stale)
		}
		return stale == 0, nil
	})
	if err != nil {
		return fmt.Errorf("Deployment %s/%s not rolled out (%s): %w", ns, name, last, err)
	}
	return nil
}

// olderPods counts the Pods of d that belong to a ReplicaSet of another
// revision than d's.
func olderPods(ctx context.Context, client kubernetes.Interface, d *appsv1.Deployment) (int, error) {
	sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
	if err != nil {
		return 0, err
	}
	rss, err := client.AppsV1().ReplicaSets(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return 0, err
	}
	current := map[string]bool{}
	for _, rs := range rss.Items {
		if rs.Annotations[revisionAnnotation] == d.Annotations[revisionAnnotation] {
			current[rs.Name] = true
		}
	}
	pods, err := client.CoreV1().Pods(d.Namespace).List(ctx, metav1.ListOptions{LabelSelector: sel.String()})
	if err != nil {
		return 0, err
	}
	stale := 0
	for _, p := range pods.Items {
		owner := metav1.GetControllerOf(&p)
		if owner == nil || !current[owner.Name] {
			stale++
		}
	}
	return stale, nil
}
