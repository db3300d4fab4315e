package database

import (
	"fmt"
	"slices"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
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

// instanceRole is CNPG's instance Role of cluster pg letting the instance
// read secrets (besides one rule of another kind, as CNPG's has).
func instanceRole(secrets ...string) *rbacv1.Role {
	return &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "pg", Namespace: ns, Labels: map[string]string{cnpgverdict.ClusterLabel: "pg"}},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "watch"}, ResourceNames: []string{"pg"}},
			{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "watch"}, ResourceNames: secrets},
		},
	}
}

// The moment CNPG's instance Role names a refused role's Secret, the
// role is retried, even within the pace; once, with the grant marked and
// the pace kept: a retry made with the Secret granted that CNPG still
// refuses (its API server's authorizer a moment behind) is retried when
// the pace would have had it anyway.
func TestRoleSecretRaceIsRetriedWhenTheInstanceRoleNamesTheSecret(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.failSecretRace("pg.orders-rw")
	secret := f.role("pg.orders-rw").Spec.PasswordSecret.Name
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	marks := func() (string, string) {
		a := f.role("pg.orders-rw").Annotations
		return a[cnpgverdict.RetryAnnotation], a[cnpgverdict.RetryGrantedAnnotation]
	}
	first, granted := marks()
	if first == "" || granted != "" {
		t.Fatalf("the first retry, the Role not naming the Secret: marks %q, %q", first, granted)
	}

	f.failSecretRace("pg.orders-rw")
	f.clock.Step(cnpgverdict.RetryPace / 4)
	if _, err := f.kube.RbacV1().Roles(ns).Create(t.Context(), instanceRole("pg-superuser", secret), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if res, err := f.sync("shop"); err != nil || res.RequeueAfter != cnpgverdict.RetryPace {
		t.Fatalf("the pass on the grant: %+v, %v", res, err)
	}
	if len(f.allWrites()) == 0 {
		t.Fatal("within the pace, the Role naming the Secret: not retried")
	}
	if at, granted := marks(); at != first || granted != "true" {
		t.Fatalf("the retry on the grant: marks %q, %q; want the paced time %q kept and the grant marked", at, granted, first)
	}

	f.failSecretRace("pg.orders-rw")
	f.clock.Step(cnpgverdict.RetryPace / 4)
	if res, err := f.sync("shop"); err != nil || res.RequeueAfter != cnpgverdict.RetryPace/2 {
		t.Fatalf("refused again after the retry on the grant: %+v, %v; want a recheck when the pace is due", res, err)
	}
	if at, _ := marks(); at != first {
		t.Errorf("retried again within the pace after a retry on the grant: %q", at)
	}
	f.clock.Step(cnpgverdict.RetryPace / 2)
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if at, _ := marks(); at == first {
		t.Error("the paced retry did not come after the retry on the grant")
	}
}

// A change of an instance Role wakes the PostgresDatabases that own the
// Secrets it newly names, and only those: each once, none for a Secret it
// named before, for one that is not a PostgresDatabase's, or for a Role
// that is not an instance Role.
func TestInstanceRoleNudgesTheOwnersOfNewlyNamedSecrets(t *testing.T) {
	t.Parallel()
	owners := map[string]string{"shop-orders-rw": "shop", "shop-orders-ro": "shop", "cart-main-rw": "cart"}
	ownerOf := func(namespace, secret string) (workqueue.Key, bool) {
		db, ok := owners[secret]
		return workqueue.Key{Namespace: namespace, Name: db}, ok
	}
	key := func(name string) workqueue.Key { return workqueue.Key{Namespace: ns, Name: name} }
	pooler := instanceRole("shop-orders-rw")
	pooler.Name = "pg-pooler-rw"
	for _, tc := range []struct {
		name     string
		old, cur *rbacv1.Role
		want     []workqueue.Key
	}{
		{"a new Role: the owner of each Secret, once", nil, instanceRole("pg-superuser", "shop-orders-rw", "shop-orders-ro", "cart-main-rw"), []workqueue.Key{key("cart"), key("shop")}},
		{"one Secret added", instanceRole("pg-superuser", "shop-orders-rw"), instanceRole("pg-superuser", "shop-orders-rw", "cart-main-rw"), []workqueue.Key{key("cart")}},
		{"nothing added", instanceRole("shop-orders-rw", "cart-main-rw"), instanceRole("shop-orders-rw"), nil},
		{"a Secret of the cluster's own", instanceRole("shop-orders-rw"), instanceRole("shop-orders-rw", "pg-replication"), nil},
		{"not an instance Role", nil, pooler, nil},
		{"a rule without get", instanceRole(), func() *rbacv1.Role {
			r := instanceRole("shop-orders-rw")
			r.Rules[1].Verbs = []string{"watch"}
			return r
		}(), nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if got := nudged(tc.old, tc.cur, ownerOf); !slices.Equal(got, tc.want) {
				t.Errorf("nudged = %v, want %v", got, tc.want)
			}
		})
	}
}

// secretOwner names the PostgresDatabase that controls a cached Secret
// of ours, and nobody for one it does not know.
func TestSecretOwnerIsTheControllingDatabase(t *testing.T) {
	t.Parallel()
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.refresh()
	secret := f.role("pg.orders-rw").Spec.PasswordSecret.Name
	if k, ok := f.c.secretOwner(ns, secret); !ok || k != (workqueue.Key{Namespace: ns, Name: "shop"}) {
		t.Errorf("secretOwner(%s) = %v, %v; want shop", secret, k, ok)
	}
	for _, s := range []string{"pg-superuser", "missing"} {
		if k, ok := f.c.secretOwner(ns, s); ok {
			t.Errorf("secretOwner(%s) = %v; want none", s, k)
		}
	}
}
