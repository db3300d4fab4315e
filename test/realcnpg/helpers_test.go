package realcnpg

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
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
	operatorLog(t, ctx, ns)
	events, err := kube.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err == nil {
		for _, e := range events.Items {
			t.Logf("event %s %s/%s %s: %s", e.Type, e.InvolvedObject.Kind, e.InvolvedObject.Name, e.Reason, e.Message)
		}
	}
}

// operatorLog logs the lines of the setpoint operators' logs that name
// namespace ns: what the operator did for the failed test, among the
// other tests' lines of the shared node.
func operatorLog(t testing.TB, ctx context.Context, ns string) {
	pods, err := kube.CoreV1().Pods(SetpointNamespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Logf("operator log: %v", err)
		return
	}
	for _, p := range pods.Items {
		raw, err := kube.CoreV1().Pods(SetpointNamespace).GetLogs(p.Name, &corev1.PodLogOptions{}).DoRaw(ctx)
		if err != nil {
			t.Logf("operator log of %s: %v", p.Name, err)
			continue
		}
		for line := range strings.Lines(string(raw)) {
			if strings.Contains(line, `"`+ns+`"`) || strings.Contains(line, ns+"/") {
				t.Logf("operator %s: %s", p.Name, strings.TrimSpace(line))
			}
		}
	}
}
