package cluster

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The cluster's connection ConfigMap is read by applications: its keys and
// values are spelled out here, not derived, so that a change to either is
// seen. host is rw-host under the name every database's ConfigMap uses.
func TestConnectionDataKeys(t *testing.T) {
	t.Parallel()
	p := testPass()
	p.want = &desired{PoolerEnabled: true}
	p.contracts.Secret = &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-superuser"}}
	want := map[string]string{
		"host": "shop-rw.ns.svc", "rw-host": "shop-rw.ns.svc", "ro-host": "shop-ro.ns.svc", "r-host": "shop-r.ns.svc",
		"port": "5432", "ca-secret": "shop-server-ca", "ca-secret-key": "ca.crt", "sslmode": "verify-full",
		"superuser-name": "postgres", "superuser-secret": "shop-superuser",
		"pooler-rw-host": "shop-pooler-rw.ns.svc", "pooler-ro-host": "shop-pooler-ro.ns.svc",
	}
	if got := connectionData(p); !maps.Equal(got, want) {
		t.Errorf("connection data\n got %v\nwant %v", got, want)
	}
}
