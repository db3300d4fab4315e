package envtest

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

var nsCounter atomic.Int64

// Namespace creates a namespace named after the test and deletes it when
// the test ends; the namespace controller then removes what is left in it.
func (e *Environment) Namespace(t testing.TB) string {
	t.Helper()
	kube, err := kubernetes.NewForConfig(e.Config)
	if err != nil {
		t.Fatalf("client: %v", err)
	}
	return CreateNamespace(t, kube, nil)
}

// CreateNamespace creates in kube a namespace named after the test, and
// deletes it when the test ends; the namespace controller then removes
// what is left in it. The name is cut to fit (a namespace name has at
// most 63 characters) and numbered, so that a test run again, or two
// tests whose names share a start, never meet in one. When the test
// failed, onFailure (if any) runs before the deletion, while the
// namespace still holds what the failure left. It takes a client, not an
// Environment, because the real tier's node is no Environment and names
// its namespaces the same way (testkit.Kit.Namespace).
func CreateNamespace(t testing.TB, kube kubernetes.Interface, onFailure func(ns string)) string {
	t.Helper()
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	name = fmt.Sprintf("%s-%d", strings.Trim(name, "-"), nsCounter.Add(1))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := kube.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		if t.Failed() && onFailure != nil {
			onFailure(name)
		}
		// t.Context() is already cancelled when cleanups run.
		_ = kube.CoreV1().Namespaces().Delete(context.WithoutCancel(t.Context()), name, metav1.DeleteOptions{})
	})
	return name
}
