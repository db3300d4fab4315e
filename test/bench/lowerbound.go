package main

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cluster"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/operator"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
	"github.com/setpoint-dev/setpoint/test/cnpgsim"
)

// The lower bound is a plain loop doing, per object, only the writes and
// SQL the job needs, with the operator's worker counts and client rate
// limits (a goroutine holds a worker's place only while it works, not
// while it waits for CNPG, as the operator's passes end and come back):
//
//   - per PostgresCluster (6 API writes): finalizer, the monitor role's
//     Secret, CNPG Cluster apply (superuser access off, as the bench's
//     class leaves it), the monitor role's and the certificate group's
//     DatabaseRole applies (the fields monitorRoleApply sets); once CNPG
//     applied both, connection ConfigMap apply and one status write. The
//     cluster applies no database's roles: since issue 28 each is a CNPG
//     DatabaseRole written by the PostgresDatabase that needs it;
//   - per PostgresDatabase (8 API writes): finalizer, two Secrets,
//     ConfigMap apply, one DatabaseRole apply per role (<db>_admin,
//     <db>_rw; the fields the operator's roleApply sets); once CNPG
//     applied both, CNPG Database apply, CNPG's CREATE DATABASE, the
//     operator's grant transaction (BEGIN, six grants, the database's
//     COMMENT marker, COMMIT; here as postgres on the shared server, the
//     operator logs in as <db>_admin: one connection either way), one
//     status write;
//   - CNPG's part for the DatabaseRoles (lowerbound_instance.go): per
//     Cluster, one at a time, the three writes CNPG makes per role and its
//     SQL (CREATE ROLE … naming every attribute, COMMENT ON ROLE), on a
//     client of its own. That chain is CNPG's, but any operator using
//     DatabaseRoles waits for it, so it belongs in the job.
//
// Reads are not replayed: neither the operator's checks in Postgres before
// its first write of a role or database (role_claim.go, checkNewDatabase,
// the monitor role's claim) nor CNPG's own lookups. Its CNPG objects carry
// a label the stand-in's selector excludes, so the stand-in does not react
// to them: the loop plays CNPG's part itself, from its first second, and
// does not wait for CNPG's Cluster or Database reports.
const (
	lbFinalizer = "bench.setpoint.dev/lower-bound"
	lbManager   = "setpoint-bench"
	lbManagedBy = "setpoint-bench-lower-bound"
)

var (
	clusterGVK  = schema.GroupVersionKind{Group: "postgres.setpoint.dev", Version: "v1alpha1", Kind: "PostgresCluster"}
	databaseGVK = schema.GroupVersionKind{Group: "postgres.setpoint.dev", Version: "v1alpha1", Kind: "PostgresDatabase"}
)

// counter counts API requests by "verb resource", like the operator's
// setpoint_api_requests_total.
type counter struct {
	mu sync.Mutex
	m  map[string]float64
}

func (c *counter) wrap(rt http.RoundTripper) http.RoundTripper {
	return rtFunc(func(req *http.Request) (*http.Response, error) {
		verb, res := operator.ClassifyRequest(req)
		c.mu.Lock()
		c.m[verb+" "+res]++
		c.mu.Unlock()
		return rt.RoundTrip(req)
	})
}

func (c *counter) snapshot() map[string]float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string]float64, len(c.m))
	for k, v := range c.m {
		out[k] = v
	}
	return out
}

type rtFunc func(*http.Request) (*http.Response, error)

func (f rtFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// lbConfig configures one lower-bound run.
type lbConfig struct {
	w               workload
	clusterWorkers  int
	databaseWorkers int
	qps             float32
	burst           int
	creators        int
	// backend: the shared Postgres server, reached like the operator
	// reaches it (host map, TLS verified against a cluster's CA).
	hostMapFile string
	backendNS   string
	backendClu  string
	caCert      []byte
}

type lbResult struct {
	wall       time.Duration
	counts     map[string]float64 // API requests of the loop (not the creator)
	statements int64
	conns      int64
}

// runLowerBound creates the workload's objects in w.ns and processes each
// as soon as it is created, then stops its instance managers.
func runLowerBound(ctx context.Context, admin *rest.Config, cfg lbConfig) (*lbResult, error) {
	run, err := startLowerBound(ctx, admin, cfg)
	if err != nil {
		return nil, err
	}
	defer run.close()
	return run.converge()
}

// lbRun is a lower bound kept alive after its convergence: its clusters,
// its worker places and its CNPG instance managers stay, so that a stream
// of new databases over its clusters (floorstream.go) pays what a new
// database costs on a converged lower bound, as the operator's stream does
// on the converged operator.
type lbRun struct {
	lb                          *lowerBound
	cnt                         *counter
	creator                     versioned.Interface
	clusterSlots, databaseSlots slots
	// ctx lives until close: the instance managers run under it.
	ctx    context.Context
	cancel context.CancelFunc
	errs   chan error
	closed sync.Once
	// inflight counts the stream's databases being worked on: close waits
	// for them, since a role submitted after stop would find its instance
	// manager's queue closed.
	inflight sync.WaitGroup
	mu       sync.Mutex
	ended    bool // close has begun: no new work
	// streamSlots, when set (withStreamPlaces), are the places of the
	// stream's databases instead of the convergence's databaseSlots.
	streamSlots slots
}

// withStreamPlaces gives the stream's databases n places of their own
// (-floor-places): with as many places as databases in flight, the floor
// is the chain a new database cannot avoid, not the operator's
// concurrency. Call before the stream.
func (r *lbRun) withStreamPlaces(n int) {
	r.streamSlots = newSlots(n)
}

// startLowerBound builds the loop's clients and places; nothing is created
// until converge.
func startLowerBound(ctx context.Context, admin *rest.Config, cfg lbConfig) (*lbRun, error) {
	cnt := &counter{m: map[string]float64{}}
	rc := rest.CopyConfig(admin)
	rc.QPS, rc.Burst = cfg.qps, cfg.burst
	rc.WrapTransport = cnt.wrap
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("lower bound client: %w", err)
	}
	pg, err := versioned.NewForConfig(rc)
	if err != nil {
		return nil, fmt.Errorf("lower bound client: %w", err)
	}
	creator, err := versioned.NewForConfig(admin)
	if err != nil {
		return nil, fmt.Errorf("lower bound creator: %w", err)
	}
	lb := &lowerBound{cfg: cfg, kube: kube, pg: pg, connector: postgres.NewConnector(postgres.NewHostMap(cfg.hostMapFile))}
	lb.cnpg = &cnpgInstances{lb: lb, client: creator, byName: map[string]chan roleJob{}}
	rctx, cancel := context.WithCancel(ctx)
	return &lbRun{lb: lb, cnt: cnt, creator: creator, ctx: rctx, cancel: cancel, errs: make(chan error, 1),
		clusterSlots: newSlots(cfg.clusterWorkers), databaseSlots: newSlots(cfg.databaseWorkers)}, nil
}

// fail keeps the first error and stops the run.
func (r *lbRun) fail(err error) {
	select {
	case r.errs <- err:
	default:
	}
	r.cancel()
}

// firstErr is the first error of any object's work, if any.
func (r *lbRun) firstErr() error {
	select {
	case e := <-r.errs:
		r.errs <- e // later callers see it too
		return e
	default:
		return nil
	}
}

// converge creates the workload and waits until every object is done.
func (r *lbRun) converge() (*lbResult, error) {
	lb, ctx := r.lb, r.ctx
	var objects sync.WaitGroup
	start, err := createAll(ctx, r.creator, lb.cfg.w, lb.cfg.creators, func(c created) {
		if c.cluObj != nil {
			objects.Go(func() {
				if err := lb.cluster(ctx, r.clusterSlots, c.cluObj); err != nil {
					r.fail(fmt.Errorf("lower bound, cluster %s: %w", c.cluObj.Name, err))
				}
			})
			return
		}
		objects.Go(func() {
			if err := lb.database(ctx, r.databaseSlots, c.dbObj); err != nil {
				r.fail(fmt.Errorf("lower bound, database %s: %w", c.dbObj.Name, err))
			}
		})
	})
	objects.Wait()
	wall := time.Since(start)
	if e := r.firstErr(); e != nil {
		return nil, e
	}
	if err != nil {
		return nil, err
	}
	return &lbResult{wall: wall, counts: r.cnt.snapshot(), statements: lb.statements.Load(), conns: lb.conns.Load()}, nil
}

// database does the loop's work for one new PostgresDatabase, created by
// the caller in the lower bound's namespace; it returns once the database's
// status is written Ready.
func (r *lbRun) database(d *pgv1.PostgresDatabase) error {
	r.mu.Lock()
	if r.ended {
		r.mu.Unlock()
		return fmt.Errorf("lower bound, database %s: the lower bound was closed", d.Name)
	}
	r.inflight.Add(1)
	r.mu.Unlock()
	defer r.inflight.Done()
	places := r.databaseSlots
	if r.streamSlots != nil {
		places = r.streamSlots
	}
	if err := r.lb.database(r.ctx, places, d); err != nil {
		return fmt.Errorf("lower bound, database %s: %w", d.Name, err)
	}
	return nil
}

// close ends the run: work still in flight (a stream cut short by an
// error) is cancelled and waited for, then the instance managers stop and
// the places' connections close. Later calls do nothing, so that a
// deferred close may follow an early one.
func (r *lbRun) close() {
	r.closed.Do(func() {
		r.mu.Lock()
		r.ended = true
		r.mu.Unlock()
		r.cancel()
		r.inflight.Wait()
		r.lb.cnpg.stop()
		r.clusterSlots.close()
		r.databaseSlots.close()
		if r.streamSlots != nil {
			r.streamSlots.close()
		}
	})
}

type lowerBound struct {
	cfg        lbConfig
	kube       kubernetes.Interface
	pg         versioned.Interface
	connector  *postgres.Connector
	cnpg       *cnpgInstances
	statements atomic.Int64
	conns      atomic.Int64
}

func finalizerPatch(rv string) []byte {
	b, _ := json.Marshal(map[string]any{"metadata": map[string]any{
		"finalizers": []string{lbFinalizer}, "resourceVersion": rv}})
	return b
}

func basicAuth(ns, name, user string, owner metav1.OwnerReference) *corev1.Secret {
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns,
			Labels:          map[string]string{"app.kubernetes.io/managed-by": lbManagedBy},
			OwnerReferences: []metav1.OwnerReference{owner}},
		Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte(user), "password": []byte(rand.Text())},
	}
}

func ownerApply(obj metav1.Object, gvk schema.GroupVersionKind) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().WithAPIVersion(gvk.GroupVersion().String()).WithKind(gvk.Kind).
		WithName(obj.GetName()).WithUID(obj.GetUID()).WithController(true).WithBlockOwnerDeletion(true)
}

var lbApply = metav1.ApplyOptions{FieldManager: lbManager, Force: true}

// cluster: finalizer, monitor Secret, CNPG Cluster (with the certificate
// group's two pg_hba lines), monitor DatabaseRole and the certificate
// group's; then, once CNPG's instance manager applied both, connection
// ConfigMap and one status write.
func (lb *lowerBound) cluster(ctx context.Context, sl slots, c *pgv1.PostgresCluster) error {
	var applied []<-chan error
	err := sl.do(ctx, func(**pgx.Conn) error {
		var err error
		c, applied, err = lb.clusterStart(ctx, c)
		return err
	})
	if err != nil {
		return err
	}
	if err := wait(ctx, applied...); err != nil {
		return err
	}
	return sl.do(ctx, func(**pgx.Conn) error { return lb.clusterFinish(ctx, c) })
}

func (lb *lowerBound) clusterStart(ctx context.Context, c *pgv1.PostgresCluster) (*pgv1.PostgresCluster, []<-chan error, error) {
	ns := c.Namespace
	c, err := lb.pg.PostgresV1alpha1().PostgresClusters(ns).Patch(ctx, c.Name, types.MergePatchType,
		finalizerPatch(c.ResourceVersion), metav1.PatchOptions{FieldManager: lbManager})
	if err != nil {
		return nil, nil, err
	}
	owner := *metav1.NewControllerRef(c, clusterGVK)
	mon, err := lb.kube.CoreV1().Secrets(ns).Create(ctx, basicAuth(ns, naming.MonitorSecret(c.Name), naming.MonitorRole, owner),
		metav1.CreateOptions{FieldManager: lbManager})
	if err != nil {
		return nil, nil, err
	}
	ac := cnpgac.Cluster(c.Name, ns).WithLabels(clusterLabels(c)).WithOwnerReferences(ownerApply(c, clusterGVK)).
		WithSpec(cnpgac.ClusterSpec().WithInstances(1).WithImageName("ghcr.io/cloudnative-pg/postgresql:15").
			WithEnableSuperuserAccess(false).
			WithPostgresConfiguration(cnpgac.PostgresConfiguration().WithPgHBA(cluster.CertAuthHBA...)).
			WithStorage(cnpgac.StorageConfiguration().WithSize("1Gi")))
	if _, err := lb.pg.CNPGV1().Clusters(ns).Apply(ctx, ac, lbApply); err != nil {
		return nil, nil, err
	}
	rac := cnpgac.DatabaseRole(naming.MonitorRoleObject(c.Name), ns).WithLabels(clusterLabels(c)).
		WithOwnerReferences(ownerApply(c, clusterGVK)).
		WithSpec(cnpgac.DatabaseRoleSpec().WithCluster(cnpgac.LocalObjectReference().WithName(c.Name)).
			WithName(naming.MonitorRole).WithLogin(true).WithInRoles("pg_monitor").
			WithPasswordSecret(cnpgac.LocalObjectReference().WithName(mon.Name)).
			WithComment(ownership.ClusterMarker(ns, c.Name)).
			WithDatabaseRoleReclaimPolicy(cnpgv1.DatabaseRoleReclaimDelete))
	monRole, err := lb.pg.CNPGV1().DatabaseRoles(ns).Apply(ctx, rac, lbApply)
	if err != nil {
		return nil, nil, err
	}
	gac := cnpgac.DatabaseRole(naming.CertAuthGroupObject(c.Name), ns).WithLabels(clusterLabels(c)).
		WithOwnerReferences(ownerApply(c, clusterGVK)).
		WithSpec(cnpgac.DatabaseRoleSpec().WithCluster(cnpgac.LocalObjectReference().WithName(c.Name)).
			WithName(naming.CertAuthGroup).WithLogin(false).
			WithComment(ownership.ClusterMarker(ns, c.Name)).
			WithDatabaseRoleReclaimPolicy(cnpgv1.DatabaseRoleReclaimRetain))
	groupRole, err := lb.pg.CNPGV1().DatabaseRoles(ns).Apply(ctx, gac, lbApply)
	if err != nil {
		return nil, nil, err
	}
	// CNPG's SQL for them. setpoint_monitor is one role per server, and the
	// shared backend is one server for every cluster: the loop creates a
	// role of the cluster's own name instead, at the same cost.
	role := pgx.Identifier{lb.cfg.w.prefix + c.Name + "_monitor"}.Sanitize()
	monDone, err := lb.cnpg.submit(ctx, monRole, mon.ResourceVersion,
		"CREATE ROLE "+role+roleAttrs+" IN ROLE pg_monitor PASSWORD "+quoteLiteral(string(mon.Data["password"])),
		"COMMENT ON ROLE "+role+" IS "+quoteLiteral(ownership.ClusterMarker(ns, c.Name)))
	if err != nil {
		return nil, nil, err
	}
	group := pgx.Identifier{lb.cfg.w.prefix + c.Name + "_cert_auth"}.Sanitize()
	groupDone, err := lb.cnpg.submit(ctx, groupRole, "", "CREATE ROLE "+group+" NOLOGIN",
		"COMMENT ON ROLE "+group+" IS "+quoteLiteral(ownership.ClusterMarker(ns, c.Name)))
	if err != nil {
		return nil, nil, err
	}
	return c, []<-chan error{monDone, groupDone}, nil
}

func clusterLabels(c *pgv1.PostgresCluster) map[string]string {
	return map[string]string{"app.kubernetes.io/managed-by": lbManagedBy, "postgres.setpoint.dev/cluster": c.Name}
}

func (lb *lowerBound) clusterFinish(ctx context.Context, c *pgv1.PostgresCluster) error {
	ns := c.Namespace
	svc := func(s string) string { return fmt.Sprintf("%s%s.%s.svc", c.Name, s, ns) }
	cm := corev1ac.ConfigMap(c.Name+"-connection", ns).WithLabels(clusterLabels(c)).
		WithOwnerReferences(ownerApply(c, clusterGVK)).
		WithData(map[string]string{"host": svc("-rw"), "rw-host": svc("-rw"), "ro-host": svc("-ro"), "r-host": svc("-r"), "port": "5432",
			"ca-secret": c.Name + "-ca", "ca-secret-key": "ca.crt", "sslmode": "verify-full"})
	if _, err := lb.kube.CoreV1().ConfigMaps(ns).Apply(ctx, cm, lbApply); err != nil {
		return err
	}
	c = c.DeepCopy()
	c.Status = pgv1.PostgresClusterStatus{
		Phase: pgv1.PhaseReady, ObservedGeneration: c.Generation, Instances: 1, ReadyInstances: 1,
		CurrentPrimary: c.Name + "-1",
		ProvisionerRef: &pgv1.ProvisionerReference{APIVersion: "postgresql.cnpg.io/v1", Kind: "Cluster", Name: c.Name},
		Resources: &pgv1.ClusterResources{ConfigMapRef: &pgv1.LocalObjectReference{Name: c.Name + "-connection"},
			MonitorSecretRef: &pgv1.LocalObjectReference{Name: naming.MonitorSecret(c.Name)}},
		Conditions: conditions(c.Generation, "SecretReady", "ProvisionerReady", "MonitorReady", "ConfigMapReady"),
	}
	_, err := lb.pg.PostgresV1alpha1().PostgresClusters(ns).UpdateStatus(ctx, c, metav1.UpdateOptions{FieldManager: lbManager})
	return err
}

func conditions(gen int64, types ...string) []metav1.Condition {
	var out []metav1.Condition
	now := metav1.Now()
	for _, t := range types {
		out = append(out, metav1.Condition{Type: t, Status: metav1.ConditionTrue, ObservedGeneration: gen,
			LastTransitionTime: now, Reason: "Ready", Message: t})
	}
	return out
}

// database: finalizer, two Secrets, ConfigMap, a DatabaseRole per role;
// once CNPG's instance manager applied the owner, CNPG Database and CNPG's
// CREATE DATABASE on the place's connection; once it applied both, the
// grant transaction on a connection to the new database, one status write.
func (lb *lowerBound) database(ctx context.Context, sl slots, d *pgv1.PostgresDatabase) error {
	var st *dbState
	var applied []<-chan error
	err := sl.do(ctx, func(**pgx.Conn) error {
		var err error
		st, applied, err = lb.databaseStart(ctx, d)
		return err
	})
	if err != nil {
		return err
	}
	// The Database needs its owner only: it is created while CNPG
	// applies the other role, as the operator does (databases_ahead.go).
	if err := wait(ctx, applied[0]); err != nil {
		return err
	}
	if err := sl.do(ctx, func(conn **pgx.Conn) error { return lb.databaseCreate(ctx, st, conn) }); err != nil {
		return err
	}
	if err := wait(ctx, applied[1:]...); err != nil {
		return err
	}
	return sl.do(ctx, func(conn **pgx.Conn) error { return lb.databaseFinish(ctx, st, conn) })
}

// dbState is what the second half of a database's work needs of the first.
type dbState struct {
	d         *pgv1.PostgresDatabase
	db, base  string
	admin, rw *corev1.Secret
}

func (st *dbState) labels() map[string]string {
	return map[string]string{"app.kubernetes.io/managed-by": lbManagedBy, "postgres.setpoint.dev/database": st.d.Name}
}

func (lb *lowerBound) databaseStart(ctx context.Context, d *pgv1.PostgresDatabase) (*dbState, []<-chan error, error) {
	ns := d.Namespace
	st := &dbState{db: d.Spec.Databases[0].Name}
	st.base = d.Name + "-" + st.db
	d, err := lb.pg.PostgresV1alpha1().PostgresDatabases(ns).Patch(ctx, d.Name, types.MergePatchType,
		finalizerPatch(d.ResourceVersion), metav1.PatchOptions{FieldManager: lbManager})
	if err != nil {
		return nil, nil, err
	}
	st.d = d
	owner := *metav1.NewControllerRef(d, databaseGVK)
	create := func(name, user string) (*corev1.Secret, error) {
		return lb.kube.CoreV1().Secrets(ns).Create(ctx, basicAuth(ns, name, user, owner), metav1.CreateOptions{FieldManager: lbManager})
	}
	if st.admin, err = create(st.base+"-admin", st.db+"_admin"); err != nil {
		return nil, nil, err
	}
	if st.rw, err = create(st.base+"-rw", st.db+"_rw"); err != nil {
		return nil, nil, err
	}
	cluster := d.Spec.ClusterRef.Name
	cm := corev1ac.ConfigMap(st.base+"-config", ns).WithLabels(st.labels()).
		WithAnnotations(map[string]string{"postgres.setpoint.dev/deletion-policy": "Delete"}).
		WithOwnerReferences(ownerApply(d, databaseGVK)).
		WithData(map[string]string{"host": cluster + "-rw." + ns + ".svc", "ro-host": cluster + "-ro." + ns + ".svc",
			"port": "5432", "database": st.db, "admin-user": st.db + "_admin", "rw-user": st.db + "_rw",
			"ca-secret": cluster + "-ca", "ca-secret-key": "ca.crt", "sslmode": "verify-full",
			"admin-secret": st.admin.Name, "rw-secret": st.rw.Name})
	if _, err := lb.kube.CoreV1().ConfigMaps(ns).Apply(ctx, cm, lbApply); err != nil {
		return nil, nil, err
	}
	// One DatabaseRole per role, with the fields the operator's roleApply
	// sets: named "<cluster>.<role, '_' as '-'>", controlled by the
	// PostgresDatabase, login, setpoint's comment marker, the password
	// Secret and the reclaim policy of deletionPolicy Delete. CNPG applies
	// each (a new role is one CREATE ROLE naming every attribute, then its
	// comment, as the stand-in runs it on the shared server).
	var applied []<-chan error
	for _, sec := range []*corev1.Secret{st.admin, st.rw} {
		role := string(sec.Data["username"])
		rac := cnpgac.DatabaseRole(cluster+"."+strings.ReplaceAll(role, "_", "-"), ns).WithLabels(st.labels()).
			WithOwnerReferences(ownerApply(d, databaseGVK)).
			WithSpec(cnpgac.DatabaseRoleSpec().WithCluster(cnpgac.LocalObjectReference().WithName(cluster)).
				WithName(role).WithLogin(true).WithComment(ownership.PostgresMarker(ns, d.Name)).
				WithDatabaseRoleReclaimPolicy(cnpgv1.DatabaseRoleReclaimDelete).
				WithPasswordSecret(cnpgac.LocalObjectReference().WithName(sec.Name)))
		obj, err := lb.pg.CNPGV1().DatabaseRoles(ns).Apply(ctx, rac, lbApply)
		if err != nil {
			return nil, nil, err
		}
		id := pgx.Identifier{role}.Sanitize()
		done, err := lb.cnpg.submit(ctx, obj, sec.ResourceVersion,
			"CREATE ROLE "+id+roleAttrs+" PASSWORD "+quoteLiteral(string(sec.Data["password"])),
			"COMMENT ON ROLE "+id+" IS "+quoteLiteral(ownership.PostgresMarker(ns, d.Name)))
		if err != nil {
			return nil, nil, err
		}
		applied = append(applied, done)
	}
	return st, applied, nil
}

// databaseCreate: the CNPG Database, and CNPG's CREATE DATABASE on the
// place's connection.
func (lb *lowerBound) databaseCreate(ctx context.Context, st *dbState, conn **pgx.Conn) error {
	d, db, ns := st.d, st.db, st.d.Namespace
	dac := cnpgac.Database(st.base, ns).WithLabels(st.labels()).WithOwnerReferences(ownerApply(d, databaseGVK)).
		WithSpec(cnpgac.DatabaseSpec().WithCluster(cnpgac.LocalObjectReference().WithName(d.Spec.ClusterRef.Name)).
			WithName(db).WithOwner(db + "_admin").WithEnsure("present").WithDatabaseReclaimPolicy("delete"))
	if _, err := lb.pg.CNPGV1().Databases(ns).Apply(ctx, dac, lbApply); err != nil {
		return err
	}
	return lb.createDatabase(ctx, db, conn)
}

// databaseFinish: the grants, once every role is applied, and one status
// write.
func (lb *lowerBound) databaseFinish(ctx context.Context, st *dbState, _ **pgx.Conn) error {
	d, db, ns := st.d, st.db, st.d.Namespace
	if err := lb.grant(ctx, db, ownership.PostgresMarker(ns, d.Name)); err != nil {
		return err
	}
	admin, rw := st.admin.Name, st.rw.Name
	d = d.DeepCopy()
	d.Status = pgv1.PostgresDatabaseStatus{
		Phase: pgv1.PhaseReady, ObservedGeneration: d.Generation,
		Conditions: conditions(d.Generation, pgv1.DatabaseConditions...),
		Databases: []pgv1.DatabaseStatus{{Name: db, Ready: true,
			AdminSecretRef: &pgv1.LocalObjectReference{Name: admin}, RWSecretRef: &pgv1.LocalObjectReference{Name: rw},
			ConfigMapRef: &pgv1.LocalObjectReference{Name: st.base + "-config"},
			Roles: []pgv1.RoleStatus{
				{Name: db + "_admin", Ensure: pgv1.RoleEnsurePresent, PasswordSecretRef: &pgv1.LocalObjectReference{Name: admin}, Exists: true},
				{Name: db + "_rw", Ensure: pgv1.RoleEnsurePresent, PasswordSecretRef: &pgv1.LocalObjectReference{Name: rw}, Exists: true},
			}}},
	}
	_, err := lb.pg.PostgresV1alpha1().PostgresDatabases(ns).UpdateStatus(ctx, d, metav1.UpdateOptions{FieldManager: lbManager})
	return err
}

func (lb *lowerBound) target(database string) postgres.Target {
	return postgres.Target{Namespace: lb.cfg.backendNS, Cluster: lb.cfg.backendClu, Database: database,
		User: "postgres", Password: "trusted-in-shared-backend", CACert: lb.cfg.caCert}
}

func (lb *lowerBound) connect(ctx context.Context, database string) (*pgx.Conn, error) {
	cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	lb.conns.Add(1)
	return lb.connector.Connect(cctx, lb.target(database))
}

// roleAttrs is how CNPG creates a login role: naming every attribute.
const roleAttrs = " NOBYPASSRLS NOCREATEDB NOCREATEROLE INHERIT LOGIN NOREPLICATION NOSUPERUSER CONNECTION LIMIT -1"

// exec runs stmts, one by one, on the worker's connection to database
// postgres, opened when it has none.
func (lb *lowerBound) exec(ctx context.Context, conn **pgx.Conn, stmts ...string) error {
	if *conn == nil || (*conn).IsClosed() {
		c, err := lb.connect(ctx, "postgres")
		if err != nil {
			return err
		}
		*conn = c
	}
	for _, s := range stmts {
		lb.statements.Add(1)
		if _, err := (*conn).Exec(ctx, s); err != nil {
			return fmt.Errorf("%.40s…: %w", s, err)
		}
	}
	return nil
}

// createDatabase is what CNPG does for the Database, as the stand-in runs
// it on the shared server.
func (lb *lowerBound) createDatabase(ctx context.Context, db string, conn **pgx.Conn) error {
	id := func(s string) string { return pgx.Identifier{s}.Sanitize() }
	return lb.exec(ctx, conn, "CREATE DATABASE "+id(db)+" OWNER "+id(db+"_admin")+" STRATEGY "+cnpgsim.SharedCreateStrategy)
}

// grant is what the operator does: the grants and the database's comment
// marker (grantPlan), in one transaction on a connection to the database.
func (lb *lowerBound) grant(ctx context.Context, db, marker string) error {
	id := func(s string) string { return pgx.Identifier{s}.Sanitize() }
	admin, rw := id(db+"_admin"), id(db+"_rw")
	c, err := lb.connect(ctx, db)
	if err != nil {
		return err
	}
	defer c.Close(context.WithoutCancel(ctx))
	lb.statements.Add(2) // BEGIN and COMMIT, as pgx's tracer counts them for the operator
	return pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		for _, s := range []string{
			"GRANT CONNECT ON DATABASE " + id(db) + " TO " + rw,
			"GRANT USAGE ON SCHEMA public TO " + rw,
			"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO " + rw,
			"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO " + rw,
			"ALTER DEFAULT PRIVILEGES FOR ROLE " + admin + " IN SCHEMA public GRANT SELECT, INSERT, UPDATE, DELETE ON TABLES TO " + rw,
			"ALTER DEFAULT PRIVILEGES FOR ROLE " + admin + " IN SCHEMA public GRANT USAGE, SELECT ON SEQUENCES TO " + rw,
			"COMMENT ON DATABASE " + id(db) + " IS " + quoteLiteral(marker),
		} {
			lb.statements.Add(1)
			if _, err := tx.Exec(ctx, s); err != nil {
				return fmt.Errorf("%s: %w", s, err)
			}
		}
		return nil
	})
}

func quoteLiteral(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }
