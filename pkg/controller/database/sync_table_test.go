package database

import (
	"errors"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
)

var errBoom = ct.ServerError("etcd is unavailable")

// passCase is one whole pass of Controller.sync on a fixture.
type passCase = ct.Case[*fixture]

func TestSyncPasses(t *testing.T) {
	t.Parallel()
	for _, tc := range []passCase{{
		Name: "a new database: finalizer and Secrets together, then ConfigMap and DatabaseRoles; the first wait is not written yet",
		Writes: []ct.Write{
			{Verb: "patch", Resource: "postgresdatabases", Name: "shop", Group: 1,
				Check: ct.Sends(`{"metadata":{"finalizers":["postgres.setpoint.dev/database"],"resourceVersion":"` + ct.AnyVersion + `"}}`)},
			{Verb: "create", Resource: "secrets", Name: "shop-orders-admin", Group: 1, Check: ct.Sends(shopSecret("orders_admin"), randomPassword)},
			{Verb: "create", Resource: "secrets", Name: "shop-orders-rw", Group: 1, Check: ct.Sends(shopSecret("orders_rw"), randomPassword)},
			{Verb: "create", Resource: "configmaps", Name: "shop-orders-config", Check: ct.Sends(shopConfigMap("orders"))},
			{Verb: "create", Resource: "secrets", Name: "shop-orders-admin-binding", Check: shopBinding("orders", "orders_admin")},
			{Verb: "create", Resource: "secrets", Name: "shop-orders-rw-binding", Check: shopBinding("orders", "orders_rw")},
			{Verb: "create", Resource: "databaseroles", Name: "pg.orders-admin", Check: ct.Sends(shopRole("orders_admin"))},
			{Verb: "create", Resource: "databaseroles", Name: "pg.orders-rw", Check: ct.Sends(shopRole("orders_rw"))},
		},
	}, {
		Name:    "roles applied: the CNPG Database is applied, and the wait still not written",
		Prepare: func(t *testing.T, f *fixture) { toDatabases(t, f, "shop") },
		Writes:  []ct.Write{{Verb: "patch", Resource: "databases", Name: "shop-orders", Check: ct.Sends(shopDatabaseApply())}},
	}, {
		Name:    "CNPG applied the database: Ready, written once, announced",
		Prepare: toApplied,
		Writes:  []ct.Write{{Verb: "update", Resource: "postgresdatabases", Subresource: "status", Name: "shop", Check: ct.Sends(shopStatus(readyStatus()), wallClock)}},
		Events:  []string{"Normal Ready phase (none) -> Ready"},
		Phase:   pgv1.PhaseReady, Reason: pgv1.ReasonAllReady,
	}, {
		Name:    "a Ready database is idle: no write, no Event",
		Prepare: func(t *testing.T, f *fixture) { converge(t, f, "shop"); f.events() },
		Phase:   pgv1.PhaseReady, Reason: pgv1.ReasonAllReady,
	}, {
		Name:    "the status write conflicts: nothing else is written, the stored status stays, the pass is retried",
		Prepare: toApplied,
		Faults: []ct.Fault{{Verb: "update", Resource: "postgresdatabases", Subresource: "status", Times: 1,
			Err: apierrors.NewConflict(schema.GroupResource{Group: pgv1.GroupName, Resource: "postgresdatabases"}, "shop", errors.New("the object has been modified"))}},
		Writes: []ct.Write{{Verb: "update", Resource: "postgresdatabases", Subresource: "status", Name: "shop", Check: ct.Sends(shopStatus(readyStatus()), wallClock)}},
		Err:    apierrors.IsConflict,
	}, {
		Name:    "the API server fails the CNPG Database's apply: DatabasesReady says so, status is written, the pass is retried",
		Prepare: func(t *testing.T, f *fixture) { toDatabases(t, f, "shop") },
		Faults:  []ct.Fault{{Verb: "patch", Resource: "databases", Name: "shop-orders", Err: errBoom}},
		Writes: []ct.Write{
			{Verb: "patch", Resource: "databases", Name: "shop-orders", Check: ct.Sends(shopDatabaseApply())},
			{Verb: "update", Resource: "postgresdatabases", Subresource: "status", Name: "shop", Check: ct.Sends(shopStatus(applyFailedStatus()), wallClock)},
		},
		Phase: pgv1.PhasePending, Reason: pgv1.ReasonDatabaseApplyFailed,
		Err: func(err error) bool { return errors.Is(err, errBoom) && apierrors.IsInternalError(err) },
	}} {
		t.Run(tc.Name, func(t *testing.T) {
			t.Parallel()
			runPass(t, tc)
		})
	}
}

func runPass(t *testing.T, tc passCase) {
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	ct.RunCase(t, tc, f, "shop")
}

// toApplied brings shop to the pass that finds its CNPG Database applied.
func toApplied(t *testing.T, f *fixture) {
	toDatabases(t, f, "shop")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.markApplied("shop-orders", true, "")
}
