package testkit

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// CreateTopologyMember creates PostgresCluster name of class, a member of
// a two-member topology whose primary is primary and whose other member
// is peer, deleted with its data (docs/guides/disaster-recovery.md).
func (k Kit) CreateTopologyMember(t testing.TB, ns, name, class, primary string, peer pgv1.TopologyPeer) {
	t.Helper()
	c := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete,
			Topology: &pgv1.TopologySpec{Primary: primary, Peers: []pgv1.TopologyPeer{peer}}},
	}
	if _, err := k.PG.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PostgresCluster %s: %v", name, err)
	}
}
