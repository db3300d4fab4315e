package realcnpg

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// newNamespace makes a namespace for one test and deletes it after.
func newNamespace(t *testing.T) string {
	t.Helper()
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := kube.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			describe(t, name)
		}
		_ = kube.CoreV1().Namespaces().Delete(context.WithoutCancel(t.Context()), name, metav1.DeleteOptions{})
	})
	return name
}

// describe logs what a failed test needs to see: the Pods of the
// namespace, the operators' and CNPG's objects' states and recent events.
func describe(t *testing.T, ns string) {
	ctx := context.WithoutCancel(t.Context())
	for _, n := range []string{ns, CNPGNamespace, SetpointNamespace} {
		pods, err := kube.CoreV1().Pods(n).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for _, p := range pods.Items {
			t.Logf("pod %s/%s: %s %s", n, p.Name, p.Status.Phase, p.Status.Message)
			for _, cs := range p.Status.ContainerStatuses {
				t.Logf("  container %s ready=%v restarts=%d state=%+v", cs.Name, cs.Ready, cs.RestartCount, cs.State)
			}
		}
	}
	events, err := kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err == nil {
		for _, e := range events.Items {
			t.Logf("event %s %s/%s %s: %s", e.Type, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
		}
	}
}
