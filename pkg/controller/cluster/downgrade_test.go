package cluster

import (
	"errors"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

func runningCluster(pc *pgv1.PostgresCluster, image, size string) *cnpgv1.Cluster {
	return &cnpgv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: pc.Name, Namespace: pc.Namespace,
			OwnerReferences: []metav1.OwnerReference{{Kind: "PostgresCluster", Name: pc.Name, UID: pc.UID, Controller: ptr.To(true)}}},
		Spec: cnpgv1.ClusterSpec{ImageName: image, Storage: &cnpgv1.StorageConfiguration{Size: size}},
	}
}

func TestClassEditThatGoesBackwardsIsRefused(t *testing.T) {
	t.Parallel()
	pc := cluster(pgv1.ClusterSettings{})
	pc.UID = "uid-1"
	cases := []struct {
		name    string
		running *cnpgv1.Cluster
		reason  string
	}{
		// class(): version 16, 10Gi.
		{"same", runningCluster(pc, "ghcr.io/cloudnative-pg/postgresql:16", "10Gi"), ""},
		{"upgrade and growth", runningCluster(pc, "ghcr.io/cloudnative-pg/postgresql:15", "5Gi"), ""},
		{"major version down", runningCluster(pc, "ghcr.io/cloudnative-pg/postgresql:17", "10Gi"), "DowngradeRefused"},
		{"major version down, minor tag", runningCluster(pc, "registry:5000/pg/postgresql:17.2-bookworm", "10Gi"), "DowngradeRefused"},
		{"storage shrinks", runningCluster(pc, "ghcr.io/cloudnative-pg/postgresql:16", "20Gi"), "StorageShrinkRefused"},
		{"storage shrinks across units", runningCluster(pc, "ghcr.io/cloudnative-pg/postgresql:16", "10241Mi"), "StorageShrinkRefused"},
		{"unreadable tag", runningCluster(pc, "ghcr.io/cloudnative-pg/postgresql@sha256:abcd", "10Gi"), ""},
		{"not created yet", nil, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := resolveAgainst(pc, class(), tc.running, t0)
			var se *specError
			switch {
			case tc.reason == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.reason != "" && (!errors.As(err, &se) || se.reason != tc.reason):
				t.Fatalf("err = %v, want reason %s", err, tc.reason)
			}
		})
	}
}

func TestDowngradeCheckIgnoresClustersNotOurs(t *testing.T) {
	t.Parallel()
	pc := cluster(pgv1.ClusterSettings{})
	pc.UID = "uid-1"
	foreign := runningCluster(pc, "ghcr.io/cloudnative-pg/postgresql:17", "10Gi")
	foreign.OwnerReferences[0].UID = "someone-else"
	if _, err := resolveAgainst(pc, class(), foreign, t0); err != nil {
		t.Fatalf("compared against a CNPG Cluster setpoint does not run: %v", err)
	}
	retained := runningCluster(pc, "ghcr.io/cloudnative-pg/postgresql:17", "10Gi")
	retained.OwnerReferences = nil
	retained.Labels = ownership.ManagedLabels(ownership.ClusterLabel, pc.Name)
	var se *specError
	if _, err := resolveAgainst(pc, class(), retained, t0); !errors.As(err, &se) || se.reason != "DowngradeRefused" {
		t.Fatalf("retained cluster: err = %v, want DowngradeRefused", err)
	}
}
