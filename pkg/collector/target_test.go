package collector

import (
	"context"
	"errors"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// monitorSecret is the monitor role's Secret of pc, controlled by owner.
func monitorSecret(pc *pgv1.PostgresCluster, owner types.UID) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: pc.Namespace, Name: pc.Name + "-monitor",
			OwnerReferences: []metav1.OwnerReference{{Kind: "PostgresCluster", Name: pc.Name, UID: owner, Controller: ptrTo(true)}}},
		Data: map[string][]byte{"username": []byte("setpoint_monitor"), "password": []byte("monitor-pw")},
	}
}

func ptrTo[T any](v T) *T { return &v }

// staticCAs hands out one CA.
type staticCAs []byte

func (c staticCAs) Get(context.Context, string, string) ([]byte, error) { return c, nil }
func (staticCAs) Forget(string, string)                                 {}

// The collector logs in as the superuser (generated or external) while
// status names one — only it may use the slots Postgres reserves, and a
// saturated server is when a sample matters — else as the monitor role
// once its Secret is published (and only this cluster's), and as nobody
// at all without either.
func TestTargetIsTheSuperuserWhileAccessIsOnElseTheMonitor(t *testing.T) {
	pc := readyCluster("shop", nil)
	pc.UID = "uid-shop"
	superuser := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "shop-superuser"},
		Data: map[string][]byte{"username": []byte("postgres"), "password": []byte("su-pw")}}
	external := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: "vault-superuser"},
		Data: map[string][]byte{"username": []byte("postgres"), "password": []byte("ext-pw")}}
	forged := monitorSecret(pc, "someone-else")
	forged.Name = "forged-monitor"
	secrets := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	for _, s := range []*corev1.Secret{monitorSecret(pc, pc.UID), superuser, forged} {
		_ = secrets.Add(s)
	}
	col := &Collector{opts: Options{}.withDefaults(), deps: Deps{
		Kube:    kubefake.NewClientset(external), // external Secrets are not cached
		Secrets: corelisters.NewSecretLister(secrets),
		CAs:     staticCAs("ca"),
	}}
	ref := func(n string) *pgv1.LocalObjectReference { return &pgv1.LocalObjectReference{Name: n} }
	for _, c := range []struct {
		name      string
		resources *pgv1.ClusterResources
		user, pw  string
	}{
		{"monitor and superuser published: the superuser may use the reserved slots", &pgv1.ClusterResources{MonitorSecretRef: ref("shop-monitor"), SuperUserSecretRef: ref("shop-superuser")}, "postgres", "su-pw"},
		{"only the monitor", &pgv1.ClusterResources{MonitorSecretRef: ref("shop-monitor")}, "setpoint_monitor", "monitor-pw"},
		{"monitor not applied yet", &pgv1.ClusterResources{SuperUserSecretRef: ref("shop-superuser")}, "postgres", "su-pw"},
		{"external superuser", &pgv1.ClusterResources{SuperUserSecretRef: ref("vault-superuser")}, "postgres", "ext-pw"},
		{"a monitor Secret that is not this cluster's", &pgv1.ClusterResources{MonitorSecretRef: ref("forged-monitor"), SuperUserSecretRef: ref("shop-superuser")}, "postgres", "su-pw"},
		{"nothing published", nil, "", ""},
		{"superuser access off, monitor not ready", &pgv1.ClusterResources{ConfigMapRef: ref("shop-connection")}, "", ""},
		{"the forged monitor alone", &pgv1.ClusterResources{MonitorSecretRef: ref("forged-monitor")}, "", ""},
	} {
		pc.Status.Resources = c.resources
		got, err := col.target(t.Context(), pc)
		if c.user == "" {
			if !errors.Is(err, errNoCredentials) {
				t.Errorf("%s: target %s, err %v; want errNoCredentials", c.name, got.User, err)
			}
			continue
		}
		if err != nil || got.User != c.user || got.Password != c.pw || got.Database != "postgres" || string(got.CACert) != "ca" {
			t.Errorf("%s: target %s (password from the expected Secret: %v), err %v; want %s", c.name, got.User, got.Password == c.pw, err, c.user)
		}
	}
}
