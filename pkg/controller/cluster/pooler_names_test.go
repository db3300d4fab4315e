package cluster

import (
	"slices"
	"testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// With a pooler, the CNPG Cluster asks for the pooler's Service names in
// its server certificate (PgBouncer serves it, and the ConfigMap says
// verify-full); without one it asks for none, and an applied Cluster
// matches either way.
func TestServerCertificateNamesThePooler(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	p := provisionerPass(t, cs, pgv1.ClusterSettings{})
	p.want.PoolerEnabled = true
	if err := (provisionerComponent{}).Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	c := p.provisioner.cnpg.Spec.Certificates
	ns, name := p.cluster.Namespace, p.cluster.Name
	for _, want := range []string{name + "-pooler-rw", name + "-pooler-rw." + ns + ".svc", name + "-pooler-ro." + ns + ".svc.cluster.local"} {
		if c == nil || !slices.Contains(c.ServerAltDNSNames, want) {
			t.Fatalf("serverAltDNSNames %+v lack %s", c, want)
		}
	}
	if !clusterMatches(p.provisioner.cnpg, p) {
		t.Error("the applied Cluster does not match: every pass would apply again")
	}
	p.want.PoolerEnabled = false
	if clusterMatches(p.provisioner.cnpg, p) {
		t.Error("a Cluster naming the pooler matches a cluster without one: the names would stay")
	}
	if names := poolerDNSNames(p); names != nil {
		t.Errorf("without a pooler: %v", names)
	}
}
