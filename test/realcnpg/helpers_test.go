package realcnpg

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
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

// eventually polls cond until it holds or timeout passes, then fails with
// what it last saw.
func eventually(t *testing.T, timeout time.Duration, what string, cond func(ctx context.Context) (bool, string, error)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(t.Context(), time.Second, timeout, true, func(ctx context.Context) (bool, error) {
		ok, seen, err := cond(ctx)
		switch {
		case err != nil && ctx.Err() != nil:
			// The poll's own deadline cut this call short: what the
			// calls before it saw says more than the cancellation.
		case err != nil:
			last = err.Error()
		default:
			last = seen
		}
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: not within %s; last seen: %s", what, timeout, last)
	}
}

// waitCluster waits for the PostgresCluster's phase at its generation.
func waitCluster(t *testing.T, ns, name string, phase pgv1.Phase, timeout time.Duration) *pgv1.PostgresCluster {
	t.Helper()
	var got *pgv1.PostgresCluster
	eventually(t, timeout, "PostgresCluster "+name+" "+string(phase), func(ctx context.Context) (bool, string, error) {
		c, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		got = c
		return c.Status.Phase == phase && c.Status.ObservedGeneration == c.Generation, conditions(c.Status.Phase, c.Status.Conditions), nil
	})
	return got
}

// waitDatabase waits for the PostgresDatabase's phase at its generation.
func waitDatabase(t *testing.T, ns, name string, phase pgv1.Phase, timeout time.Duration) *pgv1.PostgresDatabase {
	t.Helper()
	var got *pgv1.PostgresDatabase
	eventually(t, timeout, "PostgresDatabase "+name+" "+string(phase), func(ctx context.Context) (bool, string, error) {
		d, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		got = d
		return d.Status.Phase == phase && d.Status.ObservedGeneration == d.Generation, conditions(d.Status.Phase, d.Status.Conditions), nil
	})
	return got
}

func conditions(phase pgv1.Phase, cs []metav1.Condition) string {
	parts := []string{"phase " + string(phase)}
	for _, c := range cs {
		parts = append(parts, fmt.Sprintf("%s=%s (%s: %s)", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(parts, "; ")
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
