package cnpgsim

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// A Secret becomes readable secretGrantDelay after a DatabaseRole first
// names it, as CNPG's operator extends the instance Role after the object
// appears; each Secret has its own grant.
func TestSecretGrantsLagTheFirstSight(t *testing.T) {
	t.Parallel()
	var g secretGrants
	t0 := time.Date(2026, 12, 4, 14, 0, 0, 0, time.UTC)
	if g.readable("app-rw", t0) {
		t.Fatal("readable at first sight")
	}
	if g.readable("app-rw", t0.Add(secretGrantDelay-time.Millisecond)) {
		t.Fatal("readable before the grant")
	}
	if !g.readable("app-rw", t0.Add(secretGrantDelay)) {
		t.Fatal("not readable once granted")
	}
	if g.readable("app-ro", t0.Add(secretGrantDelay)) {
		t.Fatal("another Secret shares the grant")
	}
}

// The message is the API server's Forbidden error as real CNPG quoted it.
func TestSecretForbiddenMessage(t *testing.T) {
	t.Parallel()
	role := &cnpgv1.DatabaseRole{ObjectMeta: metav1.ObjectMeta{Namespace: "testdatabasebecomesreadyonrealcnpg"},
		Spec: cnpgv1.DatabaseRoleSpec{Cluster: cnpgv1.LocalObjectReference{Name: "shop"}}}
	want := `secrets "app-orders-ro" is forbidden: User "system:serviceaccount:testdatabasebecomesreadyonrealcnpg:shop" cannot get resource "secrets" in API group "" in the namespace "testdatabasebecomesreadyonrealcnpg"`
	if got := msgSecretForbidden(role, "app-orders-ro"); got != want {
		t.Errorf("message\n got %s\nwant %s", got, want)
	}
}
