package e2e_test

import (
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// Real CNPG's instance manager is usually forbidden to read a new role's
// password Secret on its first try (the instance Role CNPG's operator
// keeps does not name it yet) and tries again only after 30 s; the
// stand-in plays that race here (cnpgsim Options.SecretRace). setpoint
// asks CNPG to try again instead of waiting: every database's
// DatabaseRole was applied after a retry setpoint wrote, and none is left
// failed. The cluster's monitor role is created with the CNPG Cluster,
// before its primary runs (monitor_ahead.go), so it meets the race only
// if the stand-in's server comes up within the race: applied, retried or
// not.
func TestRoleSecretRaceIsRetried(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "race-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15)})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", ReadOnlyRole: true})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)

	roles, err := pg.CNPGV1().DatabaseRoles(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, r := range roles.Items {
		if r.Spec.PasswordSecret == nil {
			continue // the certificate group: no Secret, no race
		}
		seen++
		if r.Annotations[cnpgverdict.RetryAnnotation] == "" && r.Spec.Name != naming.MonitorRole {
			t.Errorf("DatabaseRole %s was applied without a retry: the stand-in did not race, or setpoint did not retry", r.Name)
		}
		if r.Status.Applied == nil || !*r.Status.Applied || r.Status.Message != "" {
			t.Errorf("DatabaseRole %s: status %+v, want applied", r.Name, r.Status)
		}
	}
	if seen != 4 { // setpoint-monitor, orders_admin, orders_rw, orders_ro
		t.Errorf("%d DatabaseRoles with a Secret, want 4", seen)
	}
}
