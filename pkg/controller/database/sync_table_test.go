package database

import (
	"errors"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8stesting "k8s.io/client-go/testing"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

var errBoom = ct.ServerError("etcd is unavailable")

// passCase is one whole pass of Controller.sync on a fixture.
type passCase = ct.Case[*fixture]

func TestSyncPasses(t *testing.T) {
	t.Parallel()
	for _, tc := range []passCase{{
		Name: "a new database: finalizer and Secrets together, then ConfigMap and DatabaseRoles; the first wait is not written yet",
		Writes: []ct.Write{
			{Verb: "patch", Resource: "postgresdatabases", Name: "shop", Group: 1, Check: ct.Contains(Finalizer)},
			{Verb: "create", Resource: "secrets", Name: "shop-orders-admin", Group: 1, Check: basicAuthFor("orders_admin")},
			{Verb: "create", Resource: "secrets", Name: "shop-orders-rw", Group: 1, Check: basicAuthFor("orders_rw")},
			{Verb: "create", Resource: "configmaps", Name: "shop-orders-config", Check: connectionInfo("orders", "pg-rw.default.svc")},
			{Verb: "create", Resource: "databaseroles", Name: "pg.orders-admin", Check: roleFor("orders_admin", "shop-orders-admin")},
			{Verb: "create", Resource: "databaseroles", Name: "pg.orders-rw", Check: roleFor("orders_rw", "shop-orders-rw")},
		},
	}, {
		Name:    "roles applied: the CNPG Database is applied, and the wait still not written",
		Prepare: func(t *testing.T, f *fixture) { toDatabases(t, f, "shop") },
		Writes:  []ct.Write{{Verb: "patch", Resource: "databases", Name: "shop-orders", Check: ct.Contains(`"name":"orders"`, `"owner":"orders_admin"`)}},
	}, {
		Name:    "CNPG applied the database: Ready, written once, announced",
		Prepare: toApplied,
		Writes:  []ct.Write{{Verb: "update", Resource: "postgresdatabases", Subresource: "status", Name: "shop", Check: statusIs(pgv1.PhaseReady)}},
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
		Writes: []ct.Write{{Verb: "update", Resource: "postgresdatabases", Subresource: "status", Name: "shop"}},
		Err:    apierrors.IsConflict,
	}, {
		Name:    "the API server fails the CNPG Database's apply: DatabasesReady says so, status is written, the pass is retried",
		Prepare: func(t *testing.T, f *fixture) { toDatabases(t, f, "shop") },
		Faults:  []ct.Fault{{Verb: "patch", Resource: "databases", Name: "shop-orders", Err: errBoom}},
		Writes: []ct.Write{
			{Verb: "patch", Resource: "databases", Name: "shop-orders"},
			{Verb: "update", Resource: "postgresdatabases", Subresource: "status", Name: "shop", Check: statusIs(pgv1.PhasePending)},
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

// statusIs checks the phase of a status update.
func statusIs(phase pgv1.Phase) func(k8stesting.Action) string {
	return func(a k8stesting.Action) string {
		db, ok := ct.Object(a).(*pgv1.PostgresDatabase)
		if !ok || db.Status.Phase != phase {
			return "status is not phase " + string(phase)
		}
		return ""
	}
}

// basicAuthFor checks a created Secret: basic-auth for role, controlled
// by shop.
func basicAuthFor(role string) func(k8stesting.Action) string {
	return func(a k8stesting.Action) string {
		s, ok := ct.Object(a).(*corev1.Secret)
		switch {
		case !ok:
			return "not a Secret"
		case s.Type != corev1.SecretTypeBasicAuth || string(s.Data[corev1.BasicAuthUsernameKey]) != role || len(s.Data[corev1.BasicAuthPasswordKey]) == 0:
			return fmt.Sprintf("type %s, username %q, password set %v; want basic-auth for %s", s.Type, s.Data[corev1.BasicAuthUsernameKey], len(s.Data[corev1.BasicAuthPasswordKey]) > 0, role)
		case !ownership.IsControlledBy(s, "uid-shop"):
			return fmt.Sprintf("owners %v, want shop", s.OwnerReferences)
		}
		return ""
	}
}

// connectionInfo checks a created ConfigMap's database and host.
func connectionInfo(database, host string) func(k8stesting.Action) string {
	return func(a k8stesting.Action) string {
		cm, ok := ct.Object(a).(*corev1.ConfigMap)
		if !ok || cm.Data["database"] != database || cm.Data["host"] != host || !ownership.IsControlledBy(cm, "uid-shop") {
			return fmt.Sprintf("%+v, want database %s on %s, controlled by shop", cm, database, host)
		}
		return ""
	}
}

// roleFor checks a created DatabaseRole: role on cluster pg, its password
// from secret.
func roleFor(role, secret string) func(k8stesting.Action) string {
	return func(a k8stesting.Action) string {
		r, ok := ct.Object(a).(*cnpgv1.DatabaseRole)
		if !ok || r.Spec.Name != role || r.Spec.Cluster.Name != "pg" || r.Spec.PasswordSecret == nil || r.Spec.PasswordSecret.Name != secret {
			return fmt.Sprintf("%+v, want role %s on pg with password Secret %s", r, role, secret)
		}
		return ""
	}
}
