package database

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A pass that writes the database as Failed tells the queue so: it is
// counted and logged as failed, not as a success or a wait.
func TestFailedPassReportsFailed(t *testing.T) {
	t.Parallel()
	ext := pgv1.DatabaseSpec{Name: "orders", PasswordConfig: &pgv1.DatabasePasswordConfig{
		AdminSecretRef: &pgv1.LocalObjectReference{Name: "vault-admin"}}}
	f := newFixture(t, nil, []runtime.Object{readyCluster(), newDatabase("shop", ext)})
	res, err := f.sync("shop")
	if err != nil {
		t.Fatal(err)
	}
	if got := f.db("shop").Status.Phase; got != pgv1.PhaseFailed {
		t.Fatalf("phase %s, want Failed (external Secret missing)", got)
	}
	if !res.Failed {
		t.Errorf("result %+v of a pass that wrote Failed, want Failed", res)
	}

	ok := newFixture(t, nil, []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	res, err = ok.sync("shop")
	if err != nil {
		t.Fatal(err)
	}
	if ph := ok.db("shop").Status.Phase; ph == pgv1.PhaseFailed || res.Failed {
		t.Errorf("phase %s result %+v, want a pass that is not Failed", ph, res)
	}
}
