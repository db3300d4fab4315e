package contract_test

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// The real API server refuses a delete made with ownership.DeleteOf when
// the object under that name is no longer the one judged ours — here
// deleted and re-created by someone else after a cache saw ours — and
// keeps the newcomer; the object judged is still deleted when it is the
// one there.
func TestDeleteOfRemovesOnlyTheObjectJudged(t *testing.T) {
	ns := newNamespace(t)
	cms := kube.CoreV1().ConfigMaps(ns)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "shop-orders-config", Namespace: ns}}
	judged, err := cms.Create(t.Context(), cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cms.Delete(t.Context(), cm.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	cm.Data = map[string]string{"owner": "someone else"}
	newcomer, err := cms.Create(t.Context(), cm, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}

	err = cms.Delete(t.Context(), cm.Name, ownership.DeleteOf(judged))
	if !apierrors.IsConflict(err) {
		t.Fatalf("delete of a replaced object: err = %v, want 409 Conflict", err)
	}
	kept, err := cms.Get(t.Context(), cm.Name, metav1.GetOptions{})
	if err != nil || kept.UID != newcomer.UID {
		t.Fatalf("the newcomer is gone or changed: %v %v", kept, err)
	}

	if err := cms.Delete(t.Context(), cm.Name, ownership.DeleteOf(kept)); err != nil {
		t.Fatalf("delete of the object judged: %v", err)
	}
	if _, err := cms.Get(t.Context(), cm.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("after its delete: %v, want Not Found", err)
	}
}
