package database

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// monitorTarget logs in with the Secret status publishes, and only when
// that Secret is the one setpoint generated for this cluster's monitor.
func TestMonitorTarget(t *testing.T) {
	isController := true
	pc := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop", UID: "uid-shop"}}
	owned := func(name, user string, uid string) *corev1.Secret {
		return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name,
			OwnerReferences: []metav1.OwnerReference{{Kind: "PostgresCluster", Name: "shop", UID: k8stypes.UID(uid), Controller: &isController}}},
			Data: map[string][]byte{"username": []byte(user), "password": []byte("pw-" + name)}}
	}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, s := range []*corev1.Secret{
		owned(naming.MonitorSecret("shop"), naming.MonitorRole, "uid-shop"),
		owned("stolen", naming.MonitorRole, "uid-other"),
		owned("shop-superuser", "postgres", "uid-shop"),
	} {
		_ = idx.Add(s)
	}
	secrets := corelisters.NewSecretLister(idx)
	ca := []byte("ca")

	if _, err := monitorTarget(pc, secrets, ca, "orders"); err == nil || !strings.Contains(err.Error(), "has not published") {
		t.Errorf("nothing published: %v", err)
	}
	publish := func(name string) {
		pc.Status.Resources = &pgv1.ClusterResources{MonitorSecretRef: &pgv1.LocalObjectReference{Name: name}}
	}
	publish("shop-monitor")
	got, err := monitorTarget(pc, secrets, ca, "orders")
	if err != nil || got.User != "setpoint_monitor" || got.Password != "pw-shop-monitor" || got.Database != "orders" ||
		got.Cluster != "shop" || got.Namespace != "ns" || string(got.CACert) != "ca" {
		t.Errorf("target = %+v, %v", got, err)
	}
	if _, err := monitorTarget(pc, secrets, nil, "orders"); err == nil {
		t.Error("a target without the CA")
	}
	for _, name := range []string{"stolen", "shop-superuser", "missing"} {
		publish(name)
		if got, err := monitorTarget(pc, secrets, ca, "orders"); err == nil {
			t.Errorf("status naming %s: target %s", name, got.User)
		}
	}
	if naming.MonitorRoleObject("shop") != "shop.setpoint-monitor" || ownership.ClusterMarker("ns", "shop") != "managed by setpoint for PostgresCluster ns/shop" {
		t.Error("names changed")
	}
	if _, ok := ownership.MarkerOwner(ownership.ClusterMarker("ns", "shop")); ok {
		t.Error("a cluster's marker reads as a PostgresDatabase's")
	}
	if !ownership.IsClusterMarker(ownership.ClusterMarker("ns", "shop")) || ownership.IsClusterMarker(ownership.PostgresMarker("ns", "shop")) ||
		ownership.IsClusterMarker(ownership.ClusterMarker("", "")) || ownership.IsClusterMarker("made by hand") {
		t.Error("IsClusterMarker misreads a comment")
	}
}
