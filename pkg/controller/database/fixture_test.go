package database

import (
	"context"
	"fmt"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/grantplan"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

const ns = "default"

// fakeSQL records the SQL a pass would run and plays the server's
// catalogue: the roles and databases it has, with their comments.
type fakeSQL struct {
	mu    sync.Mutex
	execs []sqlCall
	// roles are the roles the server has, with their comments; the
	// fixture's CNPG (applyRoles) creates and drops them.
	roles map[string]string
	// roleReads counts the role lookups (claims and drop checks).
	roleReads int
	// databases are the databases the server has, with their comments.
	databases map[string]string
	err       error
	// analyzed counts the ANALYZE runs; analyzedAs and analyzedIn are
	// the last one's role and database.
	analyzed               int
	analyzedAs, analyzedIn string
	// outdated are the extensions each ANALYZE run reports older than
	// the server's default.
	outdated []string
	// held, when set, is the catalog every privilege read returns.
	held *grantplan.Catalog
	// settings are the databases' settings for every role, by
	// "<database>/<param>", as ALTER DATABASE left them.
	settings map[string]string
}

// alterDatabases applies the ALTER DATABASE … SET/RESET of stmts to the
// fake's settings.
func (f *fakeSQL) alterDatabases(stmts []string) {
	for _, s := range stmts {
		var db, param, value string
		if n, _ := fmt.Sscanf(s, "ALTER DATABASE %s SET %s = %s", &db, &param, &value); n == 3 {
			if f.settings == nil {
				f.settings = map[string]string{}
			}
			f.settings[strings.Trim(db, `"`)+"/"+param] = value
		} else if n, _ := fmt.Sscanf(s, "ALTER DATABASE %s RESET %s", &db, &param); n == 2 {
			delete(f.settings, strings.Trim(db, `"`)+"/"+param)
		}
	}
}

type sqlCall struct {
	target postgres.Target
	stmts  []string
}

func (f *fakeSQL) execTx(_ context.Context, t postgres.Target, stmts []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.execs = append(f.execs, sqlCall{t, stmts})
	if f.err == nil {
		f.alterDatabases(stmts)
	}
	return f.err
}

// grants is the catalog of a database where every role holds what w
// declares: the fake server has no tables, so the plan of a pass is empty
// unless a test sets held.
func (f *fakeSQL) grants(_ context.Context, _ postgres.Target, w grantplan.Want) (grantplan.Catalog, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.held != nil {
		return *f.held, f.err
	}
	c := grantplan.Catalog{DatabaseOwner: w.Owner, Defaults: w.Defaults,
		Objects: []grantplan.Object{{Kind: grantplan.Schema, Name: "public", Owner: "pg_database_owner"}}}
	for _, s := range w.Schemas {
		c.Objects = append(c.Objects, grantplan.Object{Kind: grantplan.Schema, Name: s.Name, Owner: s.Owner})
	}
	for _, g := range w.Grants {
		o := grantplan.Object{Kind: g.On, Name: g.Schema, Owner: w.Owner}
		if g.On == grantplan.Database {
			o.Name = w.Database
		} else if g.On != grantplan.Schema {
			continue // no tables, sequences or functions
		}
		for _, p := range g.Privileges {
			c.Held = append(c.Held, grantplan.Held{Object: o, Grantee: g.Role, Privilege: p})
		}
	}
	return c, f.err
}

func (f *fakeSQL) roleComments(_ context.Context, _ postgres.Target, names []string) (map[string]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.roleReads++
	if f.err != nil {
		return nil, f.err
	}
	out := map[string]string{}
	for _, n := range names {
		if c, ok := f.roles[n]; ok {
			out[n] = c
		}
	}
	return out, nil
}

// setRole gives the server role with comment.
func (f *fakeSQL) setRole(role, comment string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.roles == nil {
		f.roles = map[string]string{}
	}
	f.roles[role] = comment
}

func (f *fakeSQL) dropRole(role string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.roles, role)
}

// role is role's comment and whether the server has it.
func (f *fakeSQL) role(role string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	c, ok := f.roles[role]
	return c, ok
}

func (f *fakeSQL) analyze(_ context.Context, t postgres.Target) ([]string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.analyzed++
	f.analyzedAs, f.analyzedIn = t.User, t.Database
	return f.outdated, f.err
}

// databaseSetting plays pg_db_role_setting: what execTx's ALTER
// DATABASE statements set (settings, "<database>/<param>").
func (f *fakeSQL) databaseSetting(_ context.Context, _ postgres.Target, name, param string) (string, bool, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	v, ok := f.settings[name+"/"+param]
	return v, ok, f.err
}

func (f *fakeSQL) databaseComment(_ context.Context, _ postgres.Target, name string) (bool, string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	comment, ok := f.databases[name]
	return ok, comment, f.err
}

type fixture struct {
	t    *testing.T
	kube *kubefake.Clientset
	pg   *fake.Clientset
	inf  *informers.Informers
	c    *Controller
	sql  *fakeSQL
	rec  *record.FakeRecorder
	// api versions writes as the API server does, refuses stale updates,
	// injects faults and logs the requests of both clientsets in order.
	api *controllertest.API
	// clock is the controller's own, stopped unless the test moves it.
	clock *clocktesting.FakeClock
}

func newFixture(t *testing.T, kubeObjs, pgObjs []runtime.Object) *fixture {
	t.Helper()
	f := &fixture{t: t, kube: kubefake.NewClientset(kubeObjs...), pg: fake.NewClientset(pgObjs...),
		sql: &fakeSQL{}, rec: record.NewFakeRecorder(100), clock: clocktesting.NewFakeClock(time.Now())}
	f.api = controllertest.NewAPI(f.kube, f.pg)
	f.inf = informers.NewInformers(f.kube, f.pg, "", 0)
	if err := f.inf.AddIndexers(); err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Kube: f.kube, PG: f.pg, Recorder: f.rec, Clock: f.clock}, f.inf)
	if err != nil {
		t.Fatal(err)
	}
	c.sql = f.sql
	f.c = c
	f.playDatabaseRoleAPI()
	f.refresh()
	return f
}

// refresh seeds the informer caches from the fake API, as the informers
// would after watching.
func (f *fixture) refresh() {
	f.t.Helper()
	ctx := f.t.Context()
	replace := func(inf cache.SharedIndexInformer, objs []any) {
		for i := range objs {
			objs[i] = f.inf.AsCached(objs[i])
		}
		if err := inf.GetIndexer().Replace(objs, ""); err != nil {
			f.t.Fatal(err)
		}
	}
	pg, cnpg, core := f.inf.Setpoint.Postgres().V1alpha1(), f.inf.Setpoint.CNPG().V1(), f.inf.Kube.Core().V1()
	dbs, _ := f.pg.PostgresV1alpha1().PostgresDatabases("").List(ctx, metav1.ListOptions{})
	replace(pg.PostgresDatabases().Informer(), controllertest.Items(dbs.Items))
	pcs, _ := f.pg.PostgresV1alpha1().PostgresClusters("").List(ctx, metav1.ListOptions{})
	replace(pg.PostgresClusters().Informer(), controllertest.Items(pcs.Items))
	classes, _ := f.pg.PostgresV1alpha1().PostgresClusterClasses().List(ctx, metav1.ListOptions{})
	replace(pg.PostgresClusterClasses().Informer(), controllertest.Items(classes.Items))
	cds, _ := f.pg.CNPGV1().Databases("").List(ctx, metav1.ListOptions{})
	replace(cnpg.Databases().Informer(), controllertest.Items(cds.Items))
	ccs, _ := f.pg.CNPGV1().Clusters("").List(ctx, metav1.ListOptions{})
	replace(cnpg.Clusters().Informer(), controllertest.Items(ccs.Items))
	drs, _ := f.pg.CNPGV1().DatabaseRoles("").List(ctx, metav1.ListOptions{})
	replace(cnpg.DatabaseRoles().Informer(), controllertest.Items(drs.Items))
	sel := metav1.ListOptions{LabelSelector: ownership.ManagedSelector().String()}
	ss, _ := f.kube.CoreV1().Secrets("").List(ctx, sel)
	replace(core.Secrets().Informer(), controllertest.Items(ss.Items))
	cms, _ := f.kube.CoreV1().ConfigMaps("").List(ctx, sel)
	replace(core.ConfigMaps().Informer(), controllertest.Items(cms.Items))
	rs, _ := f.kube.RbacV1().Roles("").List(ctx, metav1.ListOptions{LabelSelector: informers.InstanceRoleSelector})
	replace(f.inf.InstanceRoles.Rbac().V1().Roles().Informer(), controllertest.Items(rs.Items))
}

// sync runs one pass after refreshing the caches and clearing recorded
// actions.
func (f *fixture) sync(name string) (workqueue.Result, error) {
	f.t.Helper()
	f.refresh()
	f.kube.ClearActions()
	f.pg.ClearActions()
	f.api.Clear()
	return f.c.sync(f.t.Context(), workqueue.Key{Namespace: ns, Name: name})
}

// syncReported runs one pass and, when that pass deferred the object's
// status write (status_defer.go), the pass at the end of the bound, which
// writes it: for tests that read what a pass reports, not when.
func (f *fixture) syncReported(name string) (workqueue.Result, error) {
	f.t.Helper()
	res, err := f.sync(name)
	key := types.NamespacedName{Namespace: ns, Name: name}
	if m, deferred := f.c.stale.since[key]; err == nil && deferred {
		f.c.stale.since[key] = staleMark{uid: m.uid} // marked long ago: the bound has run out
		return f.sync(name)
	}
	return res, err
}

func (f *fixture) db(name string) *pgv1.PostgresDatabase {
	f.t.Helper()
	db, err := f.pg.PostgresV1alpha1().PostgresDatabases(ns).Get(f.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return db
}

func (f *fixture) secret(name string) *corev1.Secret {
	f.t.Helper()
	s, err := f.kube.CoreV1().Secrets(ns).Get(f.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return s
}

func (f *fixture) cnpgDB(name string) *cnpgv1.Database {
	f.t.Helper()
	d, err := f.pg.CNPGV1().Databases(ns).Get(f.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return d
}

// setCluster replaces the cluster's status through the fake API.
func (f *fixture) setCluster(mutate func(*pgv1.PostgresCluster)) {
	f.t.Helper()
	pc, err := f.pg.PostgresV1alpha1().PostgresClusters(ns).Get(f.t.Context(), "pg", metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	mutate(pc)
	if _, err := f.pg.PostgresV1alpha1().PostgresClusters(ns).UpdateStatus(f.t.Context(), pc, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// markApplied makes the CNPG Database report it applied.
func (f *fixture) markApplied(name string, applied bool, msg string) {
	f.t.Helper()
	f.markAppliedIn(ns, name, applied, msg)
}

// markAppliedIn is markApplied for a CNPG Database of namespace.
func (f *fixture) markAppliedIn(namespace, name string, applied bool, msg string) {
	f.t.Helper()
	d, err := f.pg.CNPGV1().Databases(namespace).Get(f.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	// As CNPG's SetAsReady and SetAsFailed: only success records the
	// generation; a failure leaves the last one applied (none at first).
	observed := d.Status.ObservedGeneration
	if applied {
		observed = d.Generation
	}
	d.Status = cnpgv1.DatabaseStatus{ObservedGeneration: observed, Applied: &applied, Message: msg}
	if _, err := f.pg.CNPGV1().Databases(namespace).UpdateStatus(f.t.Context(), d, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// writes are the mutating actions of the last pass, as "verb resource[/sub]".
func writes(actions []k8stesting.Action) []string {
	var out []string
	for _, a := range actions {
		if a.GetVerb() == "get" || a.GetVerb() == "list" || a.GetVerb() == "watch" {
			continue
		}
		s := a.GetVerb() + " " + a.GetResource().Resource
		if sub := a.GetSubresource(); sub != "" {
			s += "/" + sub
		}
		out = append(out, s)
	}
	return out
}

func (f *fixture) allWrites() []string {
	return append(writes(f.kube.Actions()), writes(f.pg.Actions())...)
}

func (f *fixture) events() []string { return controllertest.Events(f.rec) }

// The fixture as controllertest.RunCase drives it.
func (f *fixture) Drain()                         { f.events() }
func (f *fixture) FaultyAPI() *controllertest.API { return f.api }
func (f *fixture) Pass(name string) ([]string, pgv1.Phase, []metav1.Condition, error) {
	_, err := f.sync(name)
	db := f.db(name)
	return f.events(), db.Status.Phase, db.Status.Conditions, err
}

// newDatabase is a PostgresDatabase as the API server stores it: with a
// resourceVersion, which the finalizer patch carries as its guard.
func newDatabase(name string, dbs ...pgv1.DatabaseSpec) *pgv1.PostgresDatabase {
	return &pgv1.PostgresDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name), Generation: 1,
			ResourceVersion: "1", CreationTimestamp: metav1.NewTime(time.Unix(1000, 0))},
		Spec: pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: "pg"}, Databases: dbs},
	}
}

func readyCluster() *pgv1.PostgresCluster {
	return &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "pg", Namespace: ns, UID: "uid-pg", Generation: 1},
		Status: pgv1.PostgresClusterStatus{
			Phase: pgv1.PhaseReady,
			Conditions: []metav1.Condition{{Type: pgv1.ConditionReady, Status: metav1.ConditionTrue,
				Reason: "AllComponentsReady", ObservedGeneration: 1, LastTransitionTime: metav1.Now()}},
			Resources: &pgv1.ClusterResources{SuperUserSecretRef: &pgv1.LocalObjectReference{Name: "pg-superuser"}},
		},
	}
}

// clusterSecrets are the superuser Secret (ours, cached) and CNPG's CA.
func clusterSecrets() []runtime.Object { return clusterSecretsIn(ns) }

// clusterSecretsIn are clusterSecrets of a cluster of namespace.
func clusterSecretsIn(namespace string) []runtime.Object {
	return []runtime.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "pg-superuser", Namespace: namespace,
			Labels: ownership.ManagedLabels(ownership.ClusterLabel, "pg")},
			Type: corev1.SecretTypeBasicAuth, Data: map[string][]byte{"username": []byte("postgres"), "password": []byte("s3cret")}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "pg-ca", Namespace: namespace},
			Data: map[string][]byte{"ca.crt": []byte("-----BEGIN CERTIFICATE-----")}},
	}
}

// The fixture's stand-in for CNPG's DatabaseRoles, in two parts. The API
// server (playDatabaseRoleAPI): an apply that changes the spec bumps
// metadata.generation and a new object gets a UID; a delete honours the
// UID precondition and, while CNPG's finalizer is on the object, only
// marks it deleting (generation bumped, as for any custom resource).
// CNPG's instance manager (applyRoles): applies each role in Postgres with
// its comment, puts its finalizer on and reports it applied; carries out
// the reclaim policy of an object being deleted and lets it go.

// roleFinalizer is CNPG's utils.RoleFinalizerName.
const roleFinalizer = "cnpg.io/deleteRole"

var databaseRolesResource = cnpgv1.SchemeGroupVersion.WithResource("databaseroles")

func (f *fixture) playDatabaseRoleAPI() {
	tracker := f.pg.Tracker()
	uids := 0
	f.pg.PrependReactor("patch", "databaseroles", func(a k8stesting.Action) (bool, runtime.Object, error) {
		pa, ok := a.(k8stesting.PatchActionImpl)
		if !ok || pa.GetPatchType() != types.ApplyPatchType {
			return false, nil, nil
		}
		before, _ := tracker.Get(databaseRolesResource, pa.GetNamespace(), pa.GetName())
		_, obj, err := k8stesting.ObjectReaction(tracker)(a)
		if err != nil {
			return true, nil, err
		}
		r := obj.(*cnpgv1.DatabaseRole)
		if old, ok := before.(*cnpgv1.DatabaseRole); ok {
			if apiequality.Semantic.DeepEqual(old.Spec, r.Spec) {
				return true, r, nil
			}
			r.Generation = old.Generation + 1
		} else {
			uids++
			r.Generation, r.UID = 1, types.UID(fmt.Sprintf("uid-role-%d", uids))
		}
		if err := tracker.Update(databaseRolesResource, r, pa.GetNamespace()); err != nil {
			return true, nil, err
		}
		return true, r, nil
	})
	f.pg.PrependReactor("delete", "databaseroles", func(a k8stesting.Action) (bool, runtime.Object, error) {
		da := a.(k8stesting.DeleteActionImpl)
		obj, err := tracker.Get(databaseRolesResource, da.GetNamespace(), da.GetName())
		if err != nil {
			return true, nil, err
		}
		r := obj.(*cnpgv1.DatabaseRole)
		if p := da.DeleteOptions.Preconditions; p != nil && p.UID != nil && *p.UID != r.UID {
			return true, nil, apierrors.NewConflict(databaseRolesResource.GroupResource(), r.Name,
				fmt.Errorf("precondition UID %s, object UID %s", *p.UID, r.UID))
		}
		if !slices.Contains(r.Finalizers, roleFinalizer) {
			return false, nil, nil // gone at once
		}
		if r.DeletionTimestamp == nil {
			now := metav1.Now()
			r.DeletionTimestamp = &now
			r.Generation++
			if err := tracker.Update(databaseRolesResource, r, da.GetNamespace()); err != nil {
				return true, nil, err
			}
		}
		return true, nil, nil
	})
}

// applyRoles plays CNPG's instance manager over every DatabaseRole: one not
// applied at its generation is applied in Postgres (the role with the
// object's comment), gets CNPG's finalizer and status applied=true; one
// being deleted has its reclaim policy carried out (delete drops the role)
// and goes.
func (f *fixture) applyRoles() {
	f.t.Helper()
	f.applyRolesIn(ns)
}

// applyRolesIn is applyRoles over the DatabaseRoles of namespace.
func (f *fixture) applyRolesIn(namespace string) {
	f.t.Helper()
	ctx := f.t.Context()
	client := f.pg.CNPGV1().DatabaseRoles(namespace)
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	for i := range list.Items {
		r := &list.Items[i]
		switch {
		case r.DeletionTimestamp != nil:
			if r.Spec.DatabaseRoleReclaimPolicy == cnpgv1.DatabaseRoleReclaimDelete {
				f.sql.dropRole(r.Spec.Name)
			}
			// The last finalizer removed: the API server lets it go.
			if err := f.pg.Tracker().Delete(databaseRolesResource, namespace, r.Name); err != nil {
				f.t.Fatal(err)
			}
		case !roleApplied(r):
			if !slices.Contains(r.Finalizers, roleFinalizer) {
				r.Finalizers = append(r.Finalizers, roleFinalizer)
				if r, err = client.Update(ctx, r, metav1.UpdateOptions{}); err != nil {
					f.t.Fatal(err)
				}
			}
			f.sql.setRole(r.Spec.Name, r.Spec.Comment)
			f.setRoleStatus(r, cnpgv1.DatabaseRoleStatus{ObservedGeneration: r.Generation, Applied: ptr.To(true)})
		}
	}
}

// failRole makes CNPG report DatabaseRole obj not applied, with msg.
func (f *fixture) failRole(obj, msg string) {
	f.t.Helper()
	r := f.role(obj)
	// As CNPG's DatabaseRole: a failure leaves observedGeneration at the
	// last generation applied (none at first).
	f.setRoleStatus(r, cnpgv1.DatabaseRoleStatus{ObservedGeneration: r.Status.ObservedGeneration, Applied: ptr.To(false), Message: msg})
}

func (f *fixture) setRoleStatus(r *cnpgv1.DatabaseRole, st cnpgv1.DatabaseRoleStatus) {
	f.t.Helper()
	r = r.DeepCopy()
	r.Status = st
	if _, err := f.pg.CNPGV1().DatabaseRoles(r.Namespace).UpdateStatus(f.t.Context(), r, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// role is the DatabaseRole obj as stored.
func (f *fixture) role(obj string) *cnpgv1.DatabaseRole {
	f.t.Helper()
	r, err := f.pg.CNPGV1().DatabaseRoles(ns).Get(f.t.Context(), obj, metav1.GetOptions{})
	if err != nil {
		f.t.Fatal(err)
	}
	return r
}

// hasRole reports whether DatabaseRole obj is stored (deleting or not).
func (f *fixture) hasRole(obj string) bool {
	f.t.Helper()
	_, err := f.pg.CNPGV1().DatabaseRoles(ns).Get(f.t.Context(), obj, metav1.GetOptions{})
	if err != nil && !apierrors.IsNotFound(err) {
		f.t.Fatal(err)
	}
	return err == nil
}

// foreignRole is a DatabaseRole setpoint did not create for "shop": of
// role on cluster "pg", named obj, controlled by controller when given.
func foreignRole(obj, role string, controller *metav1.OwnerReference) *cnpgv1.DatabaseRole {
	r := &cnpgv1.DatabaseRole{
		ObjectMeta: metav1.ObjectMeta{Name: obj, Namespace: ns, UID: types.UID("uid-" + obj), Generation: 1},
		Spec: cnpgv1.DatabaseRoleSpec{Cluster: cnpgv1.LocalObjectReference{Name: "pg"}, Name: role, Login: true,
			PasswordSecret: &cnpgv1.LocalObjectReference{Name: "theirs"}, DatabaseRoleReclaimPolicy: cnpgv1.DatabaseRoleReclaimDelete},
	}
	if controller != nil {
		r.OwnerReferences = []metav1.OwnerReference{*controller}
	}
	return r
}

// setManagedRoles makes the CNPG Cluster of cluster "pg" (created when
// missing, controlled by it) list roles in spec.managed.roles.
func (f *fixture) setManagedRoles(roles ...cnpgv1.RoleConfiguration) {
	f.t.Helper()
	ctx := f.t.Context()
	client := f.pg.CNPGV1().Clusters(ns)
	cc, err := client.Get(ctx, "pg", metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		cc = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "pg", Namespace: ns,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: pgv1.SchemeGroupVersion.String(), Kind: "PostgresCluster",
				Name: "pg", UID: "uid-pg", Controller: ptr.To(true)}}}}
		cc, err = client.Create(ctx, cc, metav1.CreateOptions{})
	}
	if err != nil {
		f.t.Fatal(err)
	}
	cc.Spec.Managed = &cnpgv1.ManagedConfiguration{Roles: roles}
	if _, err := client.Update(ctx, cc, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// converge runs passes until name is Ready, playing CNPG between them: the
// DatabaseRoles applied, then the CNPG Databases.
func converge(t *testing.T, f *fixture, name string) {
	t.Helper()
	if _, err := f.sync(name); err != nil {
		t.Fatal(err)
	}
	f.applyRoles()
	if _, err := f.sync(name); err != nil {
		t.Fatal(err)
	}
	for _, d := range f.db(name).Spec.Databases {
		f.markApplied(naming.Database(name, d.Name).CNPG, true, "")
	}
	if _, err := f.sync(name); err != nil {
		t.Fatal(err)
	}
	if db := f.db(name); db.Status.Phase != pgv1.PhaseReady {
		t.Fatalf("not Ready: %+v", db.Status)
	}
}

// toDatabases runs name's first pass and lets CNPG apply its roles: the
// next pass gets to the databases step.
func toDatabases(t *testing.T, f *fixture, name string) {
	t.Helper()
	if _, err := f.sync(name); err != nil {
		t.Fatal(err)
	}
	f.applyRoles()
}
