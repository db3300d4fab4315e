package database

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	kubefake "k8s.io/client-go/kubernetes/fake"
	k8stesting "k8s.io/client-go/testing"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/record"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

const ns = "default"

// fakeSQL records the SQL a pass would run.
type fakeSQL struct {
	mu       sync.Mutex
	execs    []sqlCall
	existing []string
	// databases are the databases the server has, with their comments.
	databases map[string]string
	err       error
}

type sqlCall struct {
	target postgres.Target
	stmts  []string
}

func (f *fakeSQL) execTx(_ context.Context, t postgres.Target, stmts []string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.execs = append(f.execs, sqlCall{t, stmts})
	return f.err
}

func (f *fakeSQL) existingRoles(_ context.Context, _ postgres.Target, names []string) ([]string, error) {
	var out []string
	for _, n := range names {
		if slices.Contains(f.existing, n) {
			out = append(out, n)
		}
	}
	return out, f.err
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
	inf  *controller.Informers
	c    *Controller
	sql  *fakeSQL
	rec  *record.FakeRecorder
}

func newFixture(t *testing.T, kubeObjs, pgObjs []runtime.Object) *fixture {
	t.Helper()
	f := &fixture{t: t, kube: kubefake.NewClientset(kubeObjs...), pg: fake.NewClientset(pgObjs...),
		sql: &fakeSQL{}, rec: record.NewFakeRecorder(100)}
	f.inf = controller.NewInformers(f.kube, f.pg, "", 0)
	if err := f.inf.AddIndexers(); err != nil {
		t.Fatal(err)
	}
	c, err := New(Config{Kube: f.kube, PG: f.pg, Recorder: f.rec}, f.inf)
	if err != nil {
		t.Fatal(err)
	}
	c.sql = f.sql
	f.c = c
	for _, o := range pgObjs {
		if pc, ok := o.(*pgv1.PostgresCluster); ok {
			f.reconcileOwnedRoles(pc)
		}
	}
	f.refresh()
	return f
}

// reconcileOwnedRoles plays CNPG: the CNPG Cluster of pc (created when
// missing, controlled by pc) reports every role pc gave out reconciled,
// and none failed.
func (f *fixture) reconcileOwnedRoles(pc *pgv1.PostgresCluster) {
	f.t.Helper()
	var owned []string
	if st := pc.Status.ManagedRolesStatus; st != nil {
		for _, o := range st.Owners {
			owned = append(owned, o.Role)
		}
	}
	f.setCNPGRoles(pc, owned, nil)
}

// setCNPGRoles makes the CNPG Cluster of pc report reconciled and failed
// (role → message) roles.
func (f *fixture) setCNPGRoles(pc *pgv1.PostgresCluster, reconciled []string, failed map[string]string) {
	f.t.Helper()
	ctx := f.t.Context()
	client := f.pg.CNPGV1().Clusters(pc.Namespace)
	cc, err := client.Get(ctx, pc.Name, metav1.GetOptions{})
	if err != nil {
		cc = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: pc.Name, Namespace: pc.Namespace,
			OwnerReferences: []metav1.OwnerReference{{APIVersion: pgv1.SchemeGroupVersion.String(), Kind: "PostgresCluster",
				Name: pc.Name, UID: pc.UID, Controller: ptr.To(true)}}}}
		if cc, err = client.Create(ctx, cc, metav1.CreateOptions{}); err != nil {
			f.t.Fatal(err)
		}
	}
	mr := &cnpgv1.ManagedRoles{ByStatus: map[string][]string{cnpgv1.RoleStatusReconciled: reconciled}}
	for role, msg := range failed {
		if mr.CannotReconcile == nil {
			mr.CannotReconcile = map[string][]string{}
		}
		mr.CannotReconcile[role] = []string{msg}
	}
	cc.Status.ManagedRolesStatus = mr
	if _, err := client.UpdateStatus(ctx, cc, metav1.UpdateOptions{}); err != nil {
		f.t.Fatal(err)
	}
}

// refresh seeds the informer caches from the fake API, as the informers
// would after watching.
func (f *fixture) refresh() {
	f.t.Helper()
	ctx := f.t.Context()
	replace := func(inf cache.SharedIndexInformer, objs []any) {
		if err := inf.GetIndexer().Replace(objs, ""); err != nil {
			f.t.Fatal(err)
		}
	}
	pg, cnpg, core := f.inf.Setpoint.Postgres().V1alpha1(), f.inf.Setpoint.CNPG().V1(), f.inf.Kube.Core().V1()
	dbs, _ := f.pg.PostgresV1alpha1().PostgresDatabases("").List(ctx, metav1.ListOptions{})
	replace(pg.PostgresDatabases().Informer(), items(dbs.Items))
	pcs, _ := f.pg.PostgresV1alpha1().PostgresClusters("").List(ctx, metav1.ListOptions{})
	replace(pg.PostgresClusters().Informer(), items(pcs.Items))
	cds, _ := f.pg.CNPGV1().Databases("").List(ctx, metav1.ListOptions{})
	replace(cnpg.Databases().Informer(), items(cds.Items))
	ccs, _ := f.pg.CNPGV1().Clusters("").List(ctx, metav1.ListOptions{})
	replace(cnpg.Clusters().Informer(), items(ccs.Items))
	sel := metav1.ListOptions{LabelSelector: controller.ManagedSelector().String()}
	ss, _ := f.kube.CoreV1().Secrets("").List(ctx, sel)
	replace(core.Secrets().Informer(), items(ss.Items))
	cms, _ := f.kube.CoreV1().ConfigMaps("").List(ctx, sel)
	replace(core.ConfigMaps().Informer(), items(cms.Items))
}

func items[T any](in []T) []any {
	out := make([]any, len(in))
	for i := range in {
		out[i] = &in[i]
	}
	return out
}

// sync runs one pass after refreshing the caches and clearing recorded
// actions.
func (f *fixture) sync(name string) (workqueue.Result, error) {
	f.t.Helper()
	f.refresh()
	f.kube.ClearActions()
	f.pg.ClearActions()
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
	f.reconcileOwnedRoles(pc)
}

// markApplied makes the CNPG Database report it applied.
func (f *fixture) markApplied(name string, applied bool, msg string) {
	f.t.Helper()
	d := f.cnpgDB(name)
	d.Status = cnpgv1.DatabaseStatus{ObservedGeneration: d.Generation, Applied: &applied, Message: msg}
	if _, err := f.pg.CNPGV1().Databases(ns).UpdateStatus(f.t.Context(), d, metav1.UpdateOptions{}); err != nil {
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

func (f *fixture) events() []string {
	var out []string
	for {
		select {
		case e := <-f.rec.Events:
			out = append(out, e)
		default:
			return out
		}
	}
}

func newDatabase(name string, dbs ...pgv1.DatabaseSpec) *pgv1.PostgresDatabase {
	return &pgv1.PostgresDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, UID: types.UID("uid-" + name), Generation: 1,
			CreationTimestamp: metav1.NewTime(time.Unix(1000, 0))},
		Spec: pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.LocalObjectReference{Name: "pg"}, Databases: dbs},
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
func clusterSecrets() []runtime.Object {
	return []runtime.Object{
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "pg-superuser", Namespace: ns,
			Labels: controller.ManagedLabels(controller.ClusterLabel, "pg")},
			Type: corev1.SecretTypeBasicAuth, Data: map[string][]byte{"username": []byte("postgres"), "password": []byte("s3cret")}},
		&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "pg-ca", Namespace: ns},
			Data: map[string][]byte{"ca.crt": []byte("-----BEGIN CERTIFICATE-----")}},
	}
}

// ownRoles makes the cluster give roles to db; the fixture's CNPG then
// reports them reconciled (reconcileOwnedRoles).
func ownRoles(db *pgv1.PostgresDatabase, roles ...string) func(*pgv1.PostgresCluster) {
	return func(pc *pgv1.PostgresCluster) {
		st := &pgv1.ManagedRolesStatus{}
		for _, r := range roles {
			st.Owners = append(st.Owners, pgv1.RoleOwner{Role: r, Owner: pgv1.ObjectOwner{Name: db.Name, UID: db.UID}})
		}
		pc.Status.ManagedRolesStatus = st
	}
}
