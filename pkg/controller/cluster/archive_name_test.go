package cluster

import (
	"regexp"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

func cnpgArchiving(serverName string, owner metav1.OwnerReference) *cnpgv1.Cluster {
	return &cnpgv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", OwnerReferences: []metav1.OwnerReference{owner}},
		Spec: cnpgv1.ClusterSpec{Plugins: []cnpgv1.PluginConfiguration{
			{Name: barmanPlugin, Parameters: map[string]string{"serverName": serverName}}}},
	}
}

// retainedArchiving is a CNPG Cluster a Retain deletion of PostgresCluster
// shop released.
func retainedArchiving(serverName string) *cnpgv1.Cluster {
	c := cnpgArchiving(serverName, metav1.OwnerReference{})
	c.OwnerReferences = nil
	labels, annotations := ownership.Owner{Kind: gvk.Kind, Name: "shop", Cluster: "shop"}.RetainedMarks()
	labels[ownership.ManagedByLabel] = ownership.ManagedByValue
	c.Labels, c.Annotations = labels, annotations
	return c
}

// A cluster archives under its name; one restored from its own name's
// backups under a name of its own; once decided (the CNPG Cluster
// setpoint owns or kept) the name is kept; neither a foreign CNPG
// Cluster's choice nor a status is ever taken.
func TestArchiveServerName(t *testing.T) {
	t.Parallel()
	ours := ownership.OwnerRef(&metav1.ObjectMeta{Name: "shop", UID: "uid-shop"}, gvk)
	theirs := metav1.OwnerReference{APIVersion: "v1", Kind: "Other", Name: "x", UID: "uid-x", Controller: func() *bool { b := true; return &b }()}
	for _, tc := range []struct {
		name    string
		restore *pgv1.RestoreSpec
		status  string
		cnpg    *cnpgv1.Cluster
		want    string
	}{
		{"plain cluster", nil, "", nil, "shop"},
		{"restored from another cluster", &pgv1.RestoreSpec{Source: "old"}, "", nil, "shop"},
		{"restored from its own name", &pgv1.RestoreSpec{Source: "shop"}, "", nil, "shop-uid-shop"},
		{"a status naming another folder", &pgv1.RestoreSpec{Source: "shop"}, "other-cluster", nil, "shop-uid-shop"},
		{"a status naming another folder, plain cluster", nil, "other-cluster", nil, "shop"},
		{"the CNPG Cluster we own", &pgv1.RestoreSpec{Source: "shop"}, "", cnpgArchiving("shop-feedbeef", ours), "shop-feedbeef"},
		{"a foreign CNPG Cluster", &pgv1.RestoreSpec{Source: "shop"}, "", cnpgArchiving("elsewhere", theirs), "shop-uid-shop"},
		{"a CNPG Cluster retained for us", &pgv1.RestoreSpec{Source: "shop"}, "", retainedArchiving("shop-feedbeef"), "shop-feedbeef"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := testPass()
			p.cluster.Spec.Restore = tc.restore
			if tc.status != "" {
				p.cluster.Status.BackupStatus = &pgv1.BackupStatus{ServerName: tc.status}
			}
			p.obs = &observation{cnpg: tc.cnpg}
			if got := archiveServerName(p); got != tc.want {
				t.Errorf("archiveServerName = %q, want %q", got, tc.want)
			}
		})
	}
}

// The name is one a later restore.source accepts (the CRD's pattern, at
// most 63 characters) for the longest cluster name.
func TestRestoredServerNameFitsRestoreSource(t *testing.T) {
	t.Parallel()
	if got := restoredServerName("shop", "5f0c7a92-1d3e-4b8a-9c6f-0e2d4a1b3c5d"); got != "shop-5f0c7a92" {
		t.Fatalf("got %q", got)
	}
	source := regexp.MustCompile(`^[a-z]([-a-z0-9]*[a-z0-9])?$`)
	long := restoredServerName(strings.Repeat("a", 50), "5f0c7a92-1d3e-4b8a-9c6f-0e2d4a1b3c5d")
	if len(long) > 63 || !source.MatchString(long) {
		t.Fatalf("%q does not fit restore.source", long)
	}
}
