package cluster

import (
	"testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// A restart request on the PostgresCluster reaches the CNPG Cluster as
// CloudNativePG's restartedAt in setpoint's own apply, once per value: a
// converged cluster with the request already forwarded is not written
// again, and a new value is.
func TestRestartRequestReachesTheCNPGCluster(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	c := provisionerComponent{}
	p := provisionerPass(t, cs, pgv1.ClusterSettings{})
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	applied := p.provisioner.cnpg
	if _, ok := applied.Annotations[cnpgRestartAnnotation]; ok {
		t.Fatalf("restartedAt applied without a request: %v", applied.Annotations)
	}

	request := func(id string) *pass {
		p := provisionerPass(t, cs, pgv1.ClusterSettings{})
		p.cluster.Annotations = map[string]string{pgv1.RestartAnnotation: id}
		p.obs.cnpg = applied
		return p
	}
	n := len(cs.Actions())
	p = request("2026-12-07T21:30:00Z")
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if w := ct.Writes(cs.Actions()[n:]); len(w) != 1 {
		t.Fatalf("a restart request wrote %v, want one apply", w)
	}
	applied = p.provisioner.cnpg
	if got := applied.Annotations[cnpgRestartAnnotation]; got != "2026-12-07T21:30:00Z" {
		t.Fatalf("restartedAt %q, want the request's id", got)
	}
	if applied.Annotations[specHashAnnotation] == "" {
		t.Fatal("the restart's apply dropped the spec hash")
	}

	// The same request again: converged, no write.
	n = len(cs.Actions())
	if err := c.Reconcile(t.Context(), request("2026-12-07T21:30:00Z")); err != nil {
		t.Fatal(err)
	}
	if len(cs.Actions()) != n {
		t.Fatalf("the same request wrote again: %v", cs.Actions()[n:])
	}
	// A new one: one apply with the new value.
	p = request("2026-12-07T22:00:00Z")
	if err := c.Reconcile(t.Context(), p); err != nil {
		t.Fatal(err)
	}
	if len(cs.Actions()) != n+1 || p.provisioner.cnpg.Annotations[cnpgRestartAnnotation] != "2026-12-07T22:00:00Z" {
		t.Fatalf("a new request: %d writes, restartedAt %q", len(cs.Actions())-n, p.provisioner.cnpg.Annotations[cnpgRestartAnnotation])
	}
}
