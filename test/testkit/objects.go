package testkit

import (
	"testing"

	"k8s.io/client-go/util/retry"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Secret is Secret name of ns; it fails the test when there is none.
func (k Kit) Secret(t testing.TB, ns, name string) *corev1.Secret {
	t.Helper()
	s, err := k.Kube.CoreV1().Secrets(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Secret %s: %v", name, err)
	}
	return s
}

// Password is the password a database's credentials Secret holds.
func (k Kit) Password(t testing.TB, ns, secret string) string {
	t.Helper()
	return string(k.Secret(t, ns, secret).Data["password"])
}

// CreateDatabase creates PostgresDatabase name on cluster with databases.
func (k Kit) CreateDatabase(t testing.TB, ns, name, cluster string, databases ...pgv1.DatabaseSpec) {
	t.Helper()
	d := &pgv1.PostgresDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: cluster}, Databases: databases},
	}
	if _, err := k.PG.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PostgresDatabase %s: %v", name, err)
	}
}

// UpdateCluster changes PostgresCluster name by mutate, read again and
// retried on a conflict (setpoint writes its status meanwhile).
func (k Kit) UpdateCluster(t testing.TB, ns, name string, mutate func(*pgv1.PostgresCluster)) {
	t.Helper()
	clusters := k.PG.PostgresV1alpha1().PostgresClusters(ns)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		c, err := clusters.Get(t.Context(), name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		mutate(c)
		_, err = clusters.Update(t.Context(), c, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatalf("update PostgresCluster %s: %v", name, err)
	}
}
