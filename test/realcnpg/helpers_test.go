package realcnpg

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// describe logs what a failed test needs to see: the Pods of the
// namespace, the operators' and CNPG's objects' states and recent events
// (the kit's Describe: run before the namespace is deleted).
func describe(t testing.TB, ns string) {
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
