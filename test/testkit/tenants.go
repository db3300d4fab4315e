package testkit

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// CreateTenantDatabase creates PostgresDatabase name in ns on cluster of
// namespace clusterNS (spec.clusterRef.namespace), with databases.
func (k Kit) CreateTenantDatabase(t testing.TB, ns, name, clusterNS, cluster string, databases ...pgv1.DatabaseSpec) {
	t.Helper()
	d := &pgv1.PostgresDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: cluster, Namespace: clusterNS},
			Databases: databases},
	}
	if _, err := k.PG.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PostgresDatabase %s/%s: %v", ns, name, err)
	}
}

// LabelNamespace sets (a value) or removes (nil) labels of namespace ns.
func (k Kit) LabelNamespace(t testing.TB, ns string, labels map[string]*string) {
	t.Helper()
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{"labels": labels}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := k.Kube.CoreV1().Namespaces().Patch(t.Context(), ns, types.MergePatchType, patch, metav1.PatchOptions{}); err != nil {
		t.Fatalf("label namespace %s: %v", ns, err)
	}
}

// WaitDatabaseCondition waits until condition typ of PostgresDatabase
// ns/name has status and reason at its generation, and returns the object.
func (k Kit) WaitDatabaseCondition(t testing.TB, ns, name, typ string, status metav1.ConditionStatus, reason string, timeout time.Duration) *pgv1.PostgresDatabase {
	t.Helper()
	var got *pgv1.PostgresDatabase
	k.Eventually(t, timeout, fmt.Sprintf("PostgresDatabase %s/%s %s=%s %s", ns, name, typ, status, reason), func(ctx context.Context) (bool, string, error) {
		d, err := k.PG.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		got = d
		c := meta.FindStatusCondition(d.Status.Conditions, typ)
		return c != nil && c.Status == status && c.Reason == reason && c.ObservedGeneration == d.Generation,
			Conditions(d.Status.Phase, d.Status.Conditions), nil
	})
	return got
}

// ClusterSideOf counts the DatabaseRoles, CNPG Databases and Secrets in
// clusterNS labelled as objects of a PostgresDatabase of namespace ns
// (ownership.DatabaseNamespaceLabel).
func (k Kit) ClusterSideOf(t testing.TB, clusterNS, ns string) (roles, databases, secrets int) {
	t.Helper()
	sel := metav1.ListOptions{LabelSelector: labels.SelectorFromSet(labels.Set{ownership.DatabaseNamespaceLabel: ns}).String()}
	r, err := k.PG.CNPGV1().DatabaseRoles(clusterNS).List(t.Context(), sel)
	if err != nil {
		t.Fatal(err)
	}
	d, err := k.PG.CNPGV1().Databases(clusterNS).List(t.Context(), sel)
	if err != nil {
		t.Fatal(err)
	}
	s, err := k.Kube.CoreV1().Secrets(clusterNS).List(t.Context(), sel)
	if err != nil {
		t.Fatal(err)
	}
	return len(r.Items), len(d.Items), len(s.Items)
}
