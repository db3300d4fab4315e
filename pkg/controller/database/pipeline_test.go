package database

import (
	"context"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

func cond(t *testing.T, db *pgv1.PostgresDatabase, typ string) *metav1.Condition {
	t.Helper()
	c := meta.FindStatusCondition(db.Status.Conditions, typ)
	if c == nil {
		t.Fatalf("condition %s missing: %+v", typ, db.Status.Conditions)
	}
	return c
}

func TestClusterNotFoundIsPendingWithRequeue(t *testing.T) {
	t.Parallel()
	f := newFixture(t, nil, []runtime.Object{newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	res, err := f.sync("shop")
	if err != nil {
		t.Fatal(err)
	}
	if res.RequeueAfter != clusterMissingRecheck {
		t.Errorf("requeue = %v, want %v", res.RequeueAfter, clusterMissingRecheck)
	}
	db := f.db("shop")
	if db.Status.Phase != pgv1.PhasePending || cond(t, db, pgv1.ConditionClusterReady).Reason != "ClusterNotFound" {
		t.Errorf("phase %s, ClusterReady %+v", db.Status.Phase, cond(t, db, pgv1.ConditionClusterReady))
	}
	// The Secrets come before the cluster: they are waiting when it
	// becomes Ready. What needs the cluster is blocked.
	if c := cond(t, db, pgv1.ConditionSecretsReady); c.Status != metav1.ConditionTrue {
		t.Errorf("SecretsReady = %+v, want True", c)
	}
	if e := db.Status.Databases; len(e) != 1 || e[0].AdminSecretRef == nil || e[0].RWSecretRef == nil {
		t.Errorf("Secrets not published: %+v", e)
	}
	if w := f.allWrites(); slices.ContainsFunc(w, func(w string) bool { return strings.HasSuffix(w, " databaseroles") }) {
		t.Errorf("DatabaseRoles written without the cluster: %v", w)
	}
	if c := cond(t, db, pgv1.ConditionConfigMapsReady); c.Status != metav1.ConditionFalse || c.Reason != "Blocked" {
		t.Errorf("ConfigMapsReady = %+v, want False/Blocked", c)
	}
	if !slices.Contains(db.Finalizers, Finalizer) {
		t.Errorf("finalizer not added: %v", db.Finalizers)
	}
	// Nothing changed: the next pass writes nothing.
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); len(w) != 0 {
		t.Errorf("second pass wrote %v", w)
	}
}

func TestClusterNotReady(t *testing.T) {
	t.Parallel()
	pc := readyCluster()
	pc.Status.Conditions[0].Status = metav1.ConditionFalse
	pc.Status.Phase = pgv1.PhaseProvisioning
	f := newFixture(t, nil, []runtime.Object{pc, newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})})
	res, err := f.syncReported("shop")
	if err != nil || res.RequeueAfter != clusterNotReadyRecheck {
		t.Fatalf("res %+v err %v", res, err)
	}
	if c := cond(t, f.db("shop"), pgv1.ConditionClusterReady); c.Reason != "ClusterNotReady" || !strings.Contains(c.Message, `"pg" is not ready`) {
		t.Errorf("ClusterReady = %+v", c)
	}
	// The cluster moving on to another phase short of Ready reads the
	// same to the user: no status write.
	f.setCluster(func(pc *pgv1.PostgresCluster) { pc.Status.Phase = pgv1.PhaseConfiguring })
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); len(w) != 0 {
		t.Errorf("a cluster phase change short of Ready wrote %v", w)
	}
}

// The whole pipeline, pass by pass, from creation to Ready, then idle.
func TestPipelineToReadyThenIdle(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "order_items", Extensions: []string{"pgcrypto"}})
	pc := readyCluster()
	pc.Status.ConnectionPoolerStatus = &pgv1.ConnectionPoolerStatus{Enabled: true}
	f := newFixture(t, clusterSecrets(), []runtime.Object{pc, db})

	// Pass 1: Secrets, ConfigMap, role intent, DatabaseRoles; waits for
	// CloudNativePG to apply them.
	res, err := f.syncReported("shop")
	if err != nil || res.RequeueAfter != provisionRecheck {
		t.Fatalf("pass 1: res %+v err %v", res, err)
	}
	admin := f.secret("shop-order-items-admin")
	if len(admin.Data["password"]) < 20 {
		t.Errorf("admin password length %d", len(admin.Data["password"]))
	}
	f.expectStored(shopSecret("order_items_admin"), admin, randomPassword)
	f.expectStored(shopSecret("order_items_rw"), f.secret("shop-order-items-rw"), randomPassword)
	cm, err := f.kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "shop-order-items-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	wantCM := shopConfigMap("order_items")
	wantCM.Data["pooler-host"], wantCM.Data["pooler-ro-host"] = "pg-pooler-rw.default.svc", "pg-pooler-ro.default.svc"
	f.expectStored(wantCM, cm)
	got := f.db("shop")
	if got.Status.Phase != pgv1.PhaseProvisioning || cond(t, got, pgv1.ConditionRolesReady).Reason != "RolesPending" {
		t.Errorf("pass 1 phase %s roles %+v", got.Status.Phase, cond(t, got, pgv1.ConditionRolesReady))
	}
	roles := got.Status.Databases[0].Roles
	if len(roles) != 2 || roles[0].Name != "order_items_admin" || roles[0].Ensure != pgv1.RoleEnsurePresent ||
		roles[0].PasswordSecretRef.Name != "shop-order-items-admin" || roles[1].Name != "order_items_rw" {
		t.Errorf("role intent = %+v", roles)
	}
	for _, role := range []string{"order_items_admin", "order_items_rw"} {
		want := shopRole(role) // not applied yet: no status
		f.expectStored(want, f.role(want.Name))
	}
	if _, err := f.pg.CNPGV1().Databases(ns).Get(t.Context(), "shop-order-items", metav1.GetOptions{}); err == nil {
		t.Error("CNPG Database applied before its owner role")
	}
	password := string(admin.Data["password"])

	// Pass 2: CloudNativePG applied our roles; the CNPG Database is
	// applied. Status still reads as a provisioning wait: the next write
	// is Ready, unless CloudNativePG takes longer than progressReportDelay.
	f.applyRoles()
	if res, err = f.sync("shop"); err != nil || res.RequeueAfter != progressReportDelay {
		t.Fatalf("pass 2: res %+v err %v", res, err)
	}
	if w := f.allWrites(); slices.Contains(w, "update postgresdatabases/status") {
		t.Errorf("pass 2 wrote status before CloudNativePG had a chance to apply: %v", w)
	}
	f.expectStored(&cnpgv1.Database{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-order-items", Namespace: ns, Labels: shopLabels(),
			OwnerReferences: []metav1.OwnerReference{shopRef}},
		Spec: cnpgv1.DatabaseSpec{Cluster: cnpgv1.LocalObjectReference{Name: "pg"}, Name: "order_items", Owner: "order_items_admin",
			Ensure: cnpgv1.EnsurePresent, DatabaseReclaimPolicy: "delete",
			Extensions: []cnpgv1.ExtensionSpec{{Name: "pgcrypto", Ensure: cnpgv1.EnsurePresent}}},
	}, f.cnpgDB("shop-order-items"))

	// Pass 3: CNPG applied it; privileges are granted; Ready.
	f.markApplied("shop-order-items", true, "")
	if res, err = f.sync("shop"); err != nil || res.RequeueAfter != 0 {
		t.Fatalf("pass 3: res %+v err %v", res, err)
	}
	if st := f.db("shop").Status.Databases[0]; !st.Roles[0].Exists || !st.Roles[1].Exists {
		t.Errorf("roles exist = %+v", st.Roles)
	}
	if len(f.sql.execs) != 1 || f.sql.execs[0].target.Database != "order_items" || f.sql.execs[0].target.User != "order_items_admin" {
		t.Fatalf("SQL = %+v", f.sql.execs)
	}
	got = f.db("shop")
	if got.Status.Phase != pgv1.PhaseReady || cond(t, got, pgv1.ConditionReady).Status != metav1.ConditionTrue ||
		!got.Status.Databases[0].Ready || got.Status.ObservedGeneration != 1 {
		t.Errorf("pass 3 status = %+v", got.Status)
	}
	for _, c := range []string{pgv1.ConditionClusterReady, pgv1.ConditionSecretsReady, pgv1.ConditionConfigMapsReady,
		pgv1.ConditionRolesReady, pgv1.ConditionDatabasesReady, pgv1.ConditionPrivilegesReady} {
		if cond(t, got, c).Status != metav1.ConditionTrue {
			t.Errorf("%s not True: %+v", c, cond(t, got, c))
		}
	}

	// Pass 4: converged — no SQL, no writes, same password.
	if _, err = f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	if w := f.allWrites(); len(w) != 0 {
		t.Errorf("idle pass wrote %v", w)
	}
	if len(f.sql.execs) != 1 {
		t.Errorf("idle pass ran SQL: %d calls", len(f.sql.execs))
	}
	if p := string(f.secret("shop-order-items-admin").Data["password"]); p != password {
		t.Error("password changed")
	}
	for _, e := range f.events() {
		if strings.Contains(e, password) {
			t.Errorf("event leaks password: %s", e)
		}
	}
}

func equalSpec(a, b cnpgv1.DatabaseSpec) bool {
	return a.Cluster == b.Cluster && a.Name == b.Name && a.Owner == b.Owner && a.Ensure == b.Ensure &&
		a.DatabaseReclaimPolicy == b.DatabaseReclaimPolicy && slices.Equal(a.Extensions, b.Extensions)
}

func TestExistingSecretIsAdoptedNotRegenerated(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	retained := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-orders-admin", Namespace: ns, ResourceVersion: "7",
			Labels:      map[string]string{ownership.ManagedByLabel: ownership.ManagedByValue, ownership.DatabaseLabel: "shop", ownership.RetainedLabel: "true"},
			Annotations: map[string]string{ownership.RetainedForAnnotation: "PostgresDatabase/shop", ownership.RetainedClusterAnnotation: "pg"}},
		Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte("orders_admin"), "password": []byte("old-password")},
	}
	f := newFixture(t, []runtime.Object{retained}, []runtime.Object{readyCluster(), db})
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	s := f.secret("shop-orders-admin")
	if string(s.Data["password"]) != "old-password" {
		t.Error("retained password was regenerated")
	}
	if !ownership.IsControlledBy(s, db.UID) || s.Labels[ownership.RetainedLabel] != "" {
		t.Errorf("not adopted: refs %+v labels %v", s.OwnerReferences, s.Labels)
	}
}

// A Secret our cache has not seen yet: Create fails with AlreadyExists and
// the existing one is used as it is.
func TestCreateAlreadyExistsUsesExisting(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, nil, []runtime.Object{readyCluster(), db})
	ours := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-orders-rw", Namespace: ns,
			Labels:          ownership.ManagedLabels(ownership.DatabaseLabel, "shop"),
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(db, gvk)}},
		Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte("orders_rw"), "password": []byte("kept")},
	}
	f.refresh() // the cache does not have it
	if _, err := f.kube.CoreV1().Secrets(ns).Create(t.Context(), ours, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f.kube.ClearActions()
	p := newPass(&f.c.deps, db, &observation{cluster: readyCluster(), secrets: map[string]*corev1.Secret{}})
	if h := (pipeline.ComponentStage[*pass]{Component: secretsStep{}}).Run(t.Context(), p); h.Phase != pgv1.PhaseReady {
		t.Fatalf("secrets step = %+v", h)
	}
	if string(f.secret("shop-orders-rw").Data["password"]) != "kept" {
		t.Error("password regenerated")
	}
}

func TestExternalSecretValidation(t *testing.T) {
	t.Parallel()
	ext := pgv1.DatabaseSpec{Name: "orders", PasswordConfig: &pgv1.DatabasePasswordConfig{
		AdminSecretRef: &pgv1.LocalObjectReference{Name: "vault-admin"}}}
	for name, tc := range map[string]struct {
		secret *corev1.Secret
		reason string
	}{
		"missing": {nil, "ExternalSecretNotFound"},
		"opaque": {&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "vault-admin", Namespace: ns}, Type: corev1.SecretTypeOpaque,
			Data: map[string][]byte{"username": []byte("orders_admin"), "password": []byte("x")}}, "ExternalSecretInvalid"},
		"wrong user": {&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "vault-admin", Namespace: ns}, Type: corev1.SecretTypeBasicAuth,
			Data: map[string][]byte{"username": []byte("bob"), "password": []byte("x")}}, "ExternalSecretInvalid"},
		"valid": {&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "vault-admin", Namespace: ns}, Type: corev1.SecretTypeBasicAuth,
			Data: map[string][]byte{"username": []byte("orders_admin"), "password": []byte("x")}}, "SecretsReady"},
	} {
		t.Run(name, func(t *testing.T) {
			var kube []runtime.Object
			if tc.secret != nil {
				kube = append(kube, tc.secret)
			}
			f := newFixture(t, kube, []runtime.Object{readyCluster(), newDatabase("shop", ext)})
			res, err := f.sync("shop")
			if err != nil {
				t.Fatal(err)
			}
			db := f.db("shop")
			c := cond(t, db, pgv1.ConditionSecretsReady)
			if c.Reason != tc.reason {
				t.Fatalf("SecretsReady = %+v, want reason %s", c, tc.reason)
			}
			if tc.reason == "SecretsReady" {
				if db.Status.Databases[0].Roles[0].PasswordSecretRef.Name != "vault-admin" {
					t.Errorf("admin intent = %+v", db.Status.Databases[0].Roles[0])
				}
				return
			}
			if db.Status.Phase != pgv1.PhaseFailed || res.RequeueAfter != externalRecheck {
				t.Errorf("phase %s requeue %v", db.Status.Phase, res.RequeueAfter)
			}
			if strings.Contains(c.Message, `"x"`) {
				t.Errorf("message quotes the password: %s", c.Message)
			}
		})
	}
}

func TestRoleConflictIsFailedNamingTheOwner(t *testing.T) {
	t.Parallel()
	db := newDatabase("second", pgv1.DatabaseSpec{Name: "orders"})
	first := &metav1.OwnerReference{APIVersion: pgv1.SchemeGroupVersion.String(), Kind: "PostgresDatabase",
		Name: "first", UID: "uid-first", Controller: ptr.To(true)}
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db,
		foreignRole("pg.orders-admin", "orders_admin", first), foreignRole("pg.orders-rw", "orders_rw", first)})
	if _, err := f.sync("second"); err != nil {
		t.Fatal(err)
	}
	got := f.db("second")
	c := cond(t, got, pgv1.ConditionRolesReady)
	if got.Status.Phase != pgv1.PhaseFailed || c.Reason != "RoleConflict" || !strings.Contains(c.Message, `controlled by PostgresDatabase "first"`) {
		t.Errorf("phase %s RolesReady %+v", got.Status.Phase, c)
	}
	if got.Status.Databases[0].Roles[0].Exists {
		t.Error("a role owned by another object counted as ours")
	}
	if _, err := f.pg.CNPGV1().Databases(ns).Get(t.Context(), "second-orders", metav1.GetOptions{}); err == nil {
		t.Error("CNPG Database created despite the conflict")
	}
	if w := f.allWrites(); slices.ContainsFunc(w, func(w string) bool { return strings.HasSuffix(w, " databaseroles") }) {
		t.Errorf("wrote the other object's DatabaseRoles: %v", w)
	}
	if ev := f.events(); !slices.ContainsFunc(ev, func(e string) bool { return strings.HasPrefix(e, "Warning RoleConflict") }) {
		t.Errorf("events = %v", ev)
	}
}

func TestDatabaseNotAppliedIsProvisioningWithMessage(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	toDatabases(t, f, "shop")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.markApplied("shop-orders", false, `extension "nope" is not available`)
	res, err := f.sync("shop")
	if err != nil || res.RequeueAfter != provisionRecheck {
		t.Fatalf("res %+v err %v", res, err)
	}
	got := f.db("shop")
	c := cond(t, got, pgv1.ConditionDatabasesReady)
	if got.Status.Phase != pgv1.PhaseProvisioning || c.Reason != "DatabaseNotApplied" || !strings.Contains(c.Message, "nope") {
		t.Errorf("phase %s DatabasesReady %+v", got.Status.Phase, c)
	}
	if !strings.Contains(got.Status.Databases[0].Message, "nope") {
		t.Errorf("entry message = %q", got.Status.Databases[0].Message)
	}
}

func TestRemovedExtensionIsAbsentThenPruned(t *testing.T) {
	t.Parallel()
	cur := &cnpgv1.Database{Spec: cnpgv1.DatabaseSpec{Extensions: []cnpgv1.ExtensionSpec{
		{Name: "pgcrypto", Ensure: cnpgv1.EnsurePresent}, {Name: "hstore"}}}}
	n := naming.Database("shop", "orders")
	got := desiredDatabase("pg", n, pgv1.DeletionPolicyRetain, []string{"citext"}, cur)
	want := []cnpgv1.ExtensionSpec{{Name: "citext", Ensure: "present"}, {Name: "hstore", Ensure: "absent"}, {Name: "pgcrypto", Ensure: "absent"}}
	if !slices.Equal(got.Extensions, want) || got.DatabaseReclaimPolicy != "retain" {
		t.Errorf("desired = %+v", got)
	}
	// Once CNPG applied the drop, the absent entries leave the list.
	applied := true
	cur = &cnpgv1.Database{ObjectMeta: metav1.ObjectMeta{Generation: 3},
		Spec:   cnpgv1.DatabaseSpec{Extensions: want},
		Status: cnpgv1.DatabaseStatus{ObservedGeneration: 3, Applied: &applied}}
	got = desiredDatabase("pg", n, pgv1.DeletionPolicyRetain, []string{"citext"}, cur)
	if !slices.Equal(got.Extensions, want[:1]) {
		t.Errorf("after apply = %+v", got.Extensions)
	}
}

func TestGrantPlanQuotesIdentifiers(t *testing.T) {
	t.Parallel()
	plan := grantPlan(naming.Database("x", `we"ird; DROP TABLE t`), "managed by setpoint for PostgresDatabase ns/it's", false)
	want := []string{
		`GRANT CONNECT, TEMPORARY ON DATABASE "we""ird; DROP TABLE t" TO "we""ird; DROP TABLE t_rw"`,
		`GRANT USAGE ON SCHEMA public TO "we""ird; DROP TABLE t_rw"`,
		`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO "we""ird; DROP TABLE t_rw"`,
		`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO "we""ird; DROP TABLE t_rw"`,
		`ALTER DEFAULT PRIVILEGES FOR ROLE "we""ird; DROP TABLE t_admin" IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO "we""ird; DROP TABLE t_rw"`,
		`ALTER DEFAULT PRIVILEGES FOR ROLE "we""ird; DROP TABLE t_admin" IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO "we""ird; DROP TABLE t_rw"`,
		`REVOKE CONNECT, TEMPORARY ON DATABASE "we""ird; DROP TABLE t" FROM PUBLIC`,
		`REVOKE CREATE ON SCHEMA public FROM PUBLIC`,
		isolationPlan(naming.Database("x", `we"ird; DROP TABLE t`))[2],
		`COMMENT ON DATABASE "we""ird; DROP TABLE t" IS 'managed by setpoint for PostgresDatabase ns/it''s'`,
	}
	if !slices.Equal(plan, want) {
		t.Errorf("plan =\n%s", strings.Join(plan, "\n"))
	}
}

func TestGrantFailureIsAWaitNotAHotLoop(t *testing.T) {
	t.Parallel()
	db := newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"})
	f := newFixture(t, clusterSecrets(), []runtime.Object{readyCluster(), db})
	toDatabases(t, f, "shop")
	if _, err := f.sync("shop"); err != nil {
		t.Fatal(err)
	}
	f.markApplied("shop-orders", true, "")
	f.sql.err = errString("connection refused")
	res, err := f.sync("shop")
	if err != nil || res.RequeueAfter != sqlRecheck {
		t.Fatalf("res %+v err %v", res, err)
	}
	if c := cond(t, f.db("shop"), pgv1.ConditionPrivilegesReady); c.Reason != "GrantFailed" || !strings.Contains(c.Message, "connection refused") {
		t.Errorf("PrivilegesReady = %+v", c)
	}
}

type errString string

func (e errString) Error() string { return string(e) }

func TestInvalidNameIsTerminal(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("a", 64)
	f := newFixture(t, nil, []runtime.Object{readyCluster(), newDatabase(long, pgv1.DatabaseSpec{Name: "orders"})})
	_, err := f.sync(long)
	if !workqueue.IsTerminal(err) {
		t.Fatalf("err = %v, want terminal", err)
	}
	db := f.db(long)
	if db.Status.Phase != pgv1.PhaseFailed || cond(t, db, pgv1.ConditionReady).Reason != "InvalidName" {
		t.Errorf("status = %+v", db.Status)
	}
}

// A cluster's event wakes its databases only: those already started (our
// finalizer) first, then those still waiting for their first pass, ahead
// of other databases' first passes.
func TestClusterEventsRouteToItsDatabases(t *testing.T) {
	t.Parallel()
	other := newDatabase("other", pgv1.DatabaseSpec{Name: "x"})
	other.Spec.ClusterRef.Name = "elsewhere"
	started := newDatabase("started", pgv1.DatabaseSpec{Name: "y"})
	started.Finalizers = []string{Finalizer}
	f := newFixture(t, nil, []runtime.Object{readyCluster(), newDatabase("shop", pgv1.DatabaseSpec{Name: "orders"}), other, started})
	f.c.queue.Add(workqueue.Key{Namespace: ns, Name: "new"}) // first in line before the event
	f.c.clusterHandler().OnAdd(readyCluster(), false)
	got := passOrder(t, f, 3)
	if want := "started shop new"; strings.Join(got, " ") != want {
		t.Errorf("queue %q, want %q", strings.Join(got, " "), want)
	}
}

// passOrder runs the queue with one worker until n passes were handed out
// and returns their keys' names in order.
func passOrder(t *testing.T, f *fixture, n int) []string {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	var got []string
	f.c.queue.Run(ctx, 1, func(_ context.Context, k workqueue.Key) (workqueue.Result, error) {
		if got = append(got, k.Name); len(got) == n {
			cancel()
		}
		return workqueue.Result{}, nil
	})
	return got
}

// The API lists the conditions in pipeline order, for the kubectl plugin
// and for users: it must be this pipeline's order.
func TestTheAPIListsThePipelinesConditions(t *testing.T) {
	t.Parallel()
	var conds []string
	for _, s := range stages {
		conds = append(conds, s.Condition())
	}
	if !slices.Equal(pgv1.DatabaseConditions, conds) {
		t.Errorf("pgv1.DatabaseConditions = %v, the pipeline's conditions are %v", pgv1.DatabaseConditions, conds)
	}
}
