package database

import (
	"fmt"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
)

// failSecretRace makes CNPG report obj failed as real CNPG does when its
// instance Role does not name the role's Secret yet: not applied, no
// generation observed, the API's Forbidden message quoted.
func (f *fixture) failSecretRace(obj string) {
	f.t.Helper()
	r := f.role(obj)
	msg := fmt.Sprintf(`secrets %q is forbidden: User "system:serviceaccount:%s:pg" cannot get resource "secrets" in API group "" in the namespace %q`,
		r.Spec.PasswordSecret.Name, ns, ns)
	f.setRoleStatus(r, cnpgv1.DatabaseRoleStatus{Applied: ptr.To(false), Message: msg})
}

// A role CNPG could not apply because its instance manager may not read
// the Secret yet is asked again at once (an annotation, CNPG's trigger),
// then at most once per cnpgverdict.RetryPace while the failure lasts; the
// pass rechecks at that pace, and nothing is retried once CNPG applied it.
func TestRoleSecretRaceIsRetriedAtItsPace(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.failSecretRace("pg.orders-rw")
	retried := func() string { return f.role("pg.orders-rw").Annotations[cnpgverdict.RetryAnnotation] }

	res, err := f.sync("shop")
	if err != nil || res.RequeueAfter != cnpgverdict.RetryPace {
		t.Fatalf("the pass that sees the race: %+v, %v; want a recheck in %s", res, err, cnpgverdict.RetryPace)
	}
	first := retried()
	if first == "" {
		t.Fatalf("not retried: writes %v", f.allWrites())
	}
	// The retry is the role's own apply with CNPG's trigger, at this time.
	f.expectSent("patch", "databaseroles", "pg.orders-rw", shopRoleApply("orders_rw", cnpgv1.DatabaseRoleReclaimRetain).
		WithAnnotations(map[string]string{"postgres.setpoint.dev/retried-at": f.clock.Now().UTC().Format(time.RFC3339Nano)}))

	f.failSecretRace("pg.orders-rw") // CNPG tried again, too early
	f.clock.Step(cnpgverdict.RetryPace / 2)
	if res, err := f.sync("shop"); err != nil || res.RequeueAfter != cnpgverdict.RetryPace/2 {
		t.Fatalf("within the pace: %+v, %v; want a recheck when the next retry is due", res, err)
	}
	if got := retried(); got != first {
		t.Errorf("retried again within the pace: %q after %q", got, first)
	}
	f.clock.Step(cnpgverdict.RetryPace / 2)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if got := retried(); got == first {
		t.Error("not retried once the pace passed")
	}

	f.applyRoles()
	again := retried()
	f.clock.Step(cnpgverdict.RetryPace)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if got := retried(); got != again {
		t.Error("an applied role was retried")
	}
}
