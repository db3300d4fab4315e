package testkit

import (
	"context"
	"testing"

	authnv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// MetricsReaderRole is the ClusterRole setpoint ships for whoever scrapes
// its /metrics.
const MetricsReaderRole = "setpoint-metrics-reader"

// ServiceAccountToken creates ServiceAccount ns/name (unless it exists)
// and returns a token for it from the TokenRequest API, as the kubelet
// gets one.
func (k Kit) ServiceAccountToken(t testing.TB, ns, name string) string {
	t.Helper()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}}
	if _, err := k.Kube.CoreV1().ServiceAccounts(ns).Create(t.Context(), sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatalf("create ServiceAccount %s/%s: %v", ns, name, err)
	}
	tr, err := k.Kube.CoreV1().ServiceAccounts(ns).CreateToken(t.Context(), name, &authnv1.TokenRequest{
		Spec: authnv1.TokenRequestSpec{ExpirationSeconds: ptr.To[int64](3600)},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("TokenRequest for %s/%s: %v", ns, name, err)
	}
	return tr.Status.Token
}

// MetricsReaderToken is a token of ServiceAccount ns/scraper bound to
// the shipped MetricsReaderRole (which must be installed), as a scraper
// would have. The binding goes with the test: it is cluster-wide, and
// would outlive the namespace.
func (k Kit) MetricsReaderToken(t testing.TB, ns string) string {
	t.Helper()
	token := k.ServiceAccountToken(t, ns, "scraper")
	crb := &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "scraper-" + ns},
		RoleRef:    rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: MetricsReaderRole},
		Subjects:   []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: "scraper", Namespace: ns}},
	}
	if _, err := k.Kube.RbacV1().ClusterRoleBindings().Create(t.Context(), crb, metav1.CreateOptions{}); err != nil {
		t.Fatalf("bind %s: %v", MetricsReaderRole, err)
	}
	t.Cleanup(func() {
		_ = k.Kube.RbacV1().ClusterRoleBindings().Delete(context.WithoutCancel(t.Context()), crb.Name, metav1.DeleteOptions{})
	})
	return token
}
