package envtest

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
)

// SettleGC waits until the garbage collector has removed a marker object
// owned by an owner deleted after the fact: once it acted on the marker,
// it has processed the earlier deletions too (it works in order of the
// events it sees), so what survives was really left alone. This, not a
// sleep, is what lets a test say an object was kept.
func SettleGC(ctx context.Context, client kubernetes.Interface, ns string, timeout time.Duration) error {
	cms := client.CoreV1().ConfigMaps(ns)
	owner, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gc-owner-"}}, metav1.CreateOptions{})
	if err != nil {
		return fmt.Errorf("garbage collector marker: %w", err)
	}
	child := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gc-child-", OwnerReferences: []metav1.OwnerReference{{
		APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID}}}}
	if child, err = cms.Create(ctx, child, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("garbage collector marker: %w", err)
	}
	if err := cms.Delete(ctx, owner.Name, metav1.DeleteOptions{}); err != nil {
		return fmt.Errorf("garbage collector marker: %w", err)
	}
	err = wait.PollUntilContextTimeout(ctx, 200*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		_, err := cms.Get(ctx, child.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		return fmt.Errorf("the garbage collector did not remove marker %s within %s: %w", child.Name, timeout, err)
	}
	return nil
}
