package contract_test

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// The real garbage collector removes a Secret owned by a PostgresDatabase
// once the PostgresDatabase is gone: our children rely on it.
func TestGarbageCollectionRemovesOwnedChildren(t *testing.T) {
	ns := newNamespace(t)
	owner, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), validDatabase(ns), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create owner: %v", err)
	}
	child := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{
			Name: "shop-app-orders-admin", Namespace: ns,
			OwnerReferences: []metav1.OwnerReference{{
				APIVersion: pgv1.SchemeGroupVersion.String(), Kind: "PostgresDatabase",
				Name: owner.Name, UID: owner.UID, Controller: new(true), BlockOwnerDeletion: new(true),
			}},
		},
		StringData: map[string]string{"username": "orders_admin"},
	}
	if _, err := kube.CoreV1().Secrets(ns).Create(t.Context(), child, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create child: %v", err)
	}
	if err := pg.PostgresV1alpha1().PostgresDatabases(ns).Delete(t.Context(), owner.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete owner: %v", err)
	}
	err = wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, 60*time.Second, true, func(ctx context.Context) (bool, error) {
		_, err := kube.CoreV1().Secrets(ns).Get(ctx, child.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	if err != nil {
		t.Fatalf("owned Secret still present after its owner was deleted: %v", err)
	}
}
