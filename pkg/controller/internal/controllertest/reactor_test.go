package controllertest

import (
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
)

func TestReactorVersionsWritesAndRefusesStaleUpdates(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	NewAPI(cs)
	cms := cs.CoreV1().ConfigMaps("ns")
	created, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	if err != nil || created.ResourceVersion == "" || created.UID == "" {
		t.Fatalf("create: %+v, %v; want a resourceVersion and a UID", created.ObjectMeta, err)
	}
	next := created.DeepCopy()
	next.Data = map[string]string{"k": "v"}
	updated, err := cms.Update(t.Context(), next, metav1.UpdateOptions{})
	if err != nil || updated.ResourceVersion == created.ResourceVersion {
		t.Fatalf("update: %v, version %s after %s; want a new version", err, updated.ResourceVersion, created.ResourceVersion)
	}
	stored, _ := cms.Get(t.Context(), "a", metav1.GetOptions{})
	if stored.ResourceVersion != updated.ResourceVersion {
		t.Errorf("stored version %s, the update returned %s", stored.ResourceVersion, updated.ResourceVersion)
	}
	stale := created.DeepCopy()
	stale.Data = map[string]string{"k": "stale"}
	if _, err := cms.Update(t.Context(), stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Errorf("stale update: %v, want Conflict", err)
	}
	if got, _ := cms.Get(t.Context(), "a", metav1.GetOptions{}); got.Data["k"] != "v" {
		t.Errorf("a refused update changed the object: %v", got.Data)
	}
}

func TestReactorFailsWhatTheTableNames(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "a"}})
	api := NewAPI(cs)
	boom := ServerError("etcd is sad")
	api.Fail(Fault{Verb: "create", Resource: "configmaps", Name: "b", Err: boom, Times: 1})
	cms := cs.CoreV1().ConfigMaps("ns")
	if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{}); !errors.Is(err, boom) || !apierrors.IsInternalError(err) {
		t.Fatalf("first create: %v, want the injected 500", err)
	}
	if _, err := cms.Create(t.Context(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "b"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("second create: %v; the fault was for one request", err)
	}
	if _, err := cms.Get(t.Context(), "a", metav1.GetOptions{}); err != nil {
		t.Errorf("a read the table does not name: %v", err)
	}
	Expect(t, api.Actions(), []Write{
		{Verb: "create", Resource: "configmaps", Name: "b"},
		{Verb: "create", Resource: "configmaps", Name: "b", Check: func(a k8stesting.Action) string {
			if cm, ok := Object(a).(*corev1.ConfigMap); !ok || cm.Name != "b" {
				return "not ConfigMap b"
			}
			return ""
		}},
	})
}
