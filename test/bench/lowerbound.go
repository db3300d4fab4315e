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
	"github.com/setpoint-dev/setpoint/pkg/controller"
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
// limits:
//
//   - per PostgresCluster (6 API writes): finalizer, the monitor role's
//     Secret, CNPG Cluster apply (superuser access off, as the bench's
//     class leaves it), the monitor role's DatabaseRole apply
//     (setpoint_monitor in pg_monitor; the fields monitorRoleApply sets),
//     connection ConfigMap apply, one status write; and CNPG's SQL for
//     the monitor role (CREATE ROLE … IN ROLE pg_monitor, COMMENT ON
//     ROLE). The cluster applies no database's roles: since issue 28
//     each is a CNPG DatabaseRole written by the PostgresDatabase that
//     needs it;
//   - per PostgresDatabase (8 API writes): finalizer, two Secrets,
//     ConfigMap apply, one DatabaseRole apply per role (<db>_admin,
//     <db>_rw; the fields the operator's roleApply sets), CNPG Database
//     apply, one status write; and its SQL (14 statements): what CNPG runs
//     for the two DatabaseRoles and the Database (CREATE ROLE and COMMENT
//     ON ROLE each, CREATE DATABASE), then the operator's grant
//     transaction (BEGIN, six grants, the database's COMMENT marker,
//     COMMIT), here as postgres on the shared server (the operator logs in
//     as <db>_admin: one connection either way).
//
// Reads are not replayed: neither the operator's checks in Postgres before
// its first write of a role or database (role_claim.go, checkNewDatabase,
// the monitor role's claim) nor CNPG's own lookups. Its CNPG objects carry a label the stand-in's
// selector excludes, so nothing reacts to them, and nothing waits for a
// CNPG report: the loop runs the SQL CNPG would run itself, from its first
// second, since in the operator's run that work is on the critical path
// too.
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
// as soon as it is created.
func runLowerBound(ctx context.Context, admin *rest.Config, cfg lbConfig) (*lbResult, error) {
	cnt := &counter{m: map[string]float64{}}
	rc := rest.CopyConfig(admin)
	rc.QPS, rc.Burst = cfg.qps, cfg.burst
	rc.WrapTransport = cnt.wrap
	kube, err := kubernetes.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	pg, err := versioned.NewForConfig(rc)
	if err != nil {
		return nil, err
	}
	creator, err := versioned.NewForConfig(admin)
	if err != nil {
		return nil, err
	}
	lb := &lowerBound{cfg: cfg, kube: kube, pg: pg, connector: postgres.NewConnector(postgres.NewHostMap(cfg.hostMapFile))}

	clusters := make(chan *pgv1.PostgresCluster, cfg.w.clusters)
	databases := make(chan *pgv1.PostgresDatabase, cfg.w.clusters*cfg.w.perDB)
	errs := make(chan error, cfg.clusterWorkers+cfg.databaseWorkers+1)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	for range cfg.clusterWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var conn *pgx.Conn // this worker's connection to database postgres
			defer func() {
				if conn != nil {
					_ = conn.Close(context.Background())
				}
			}()
			for c := range clusters {
				if err := lb.cluster(ctx, c, &conn); err != nil {
					errs <- fmt.Errorf("lower bound, cluster %s: %w", c.Name, err)
					cancel()
					return
				}
			}
		}()
	}
	for range cfg.databaseWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			var conn *pgx.Conn // this worker's connection to database postgres
			defer func() {
				if conn != nil {
					_ = conn.Close(context.Background())
				}
			}()
			for d := range databases {
				if err := lb.database(ctx, d, &conn); err != nil {
					errs <- fmt.Errorf("lower bound, database %s: %w", d.Name, err)
					cancel()
					return
				}
			}
		}()
	}
	start, err := createAll(ctx, creator, cfg.w, cfg.creators, func(c created) {
		if c.cluObj != nil {
			clusters <- c.cluObj
		} else {
			databases <- c.dbObj
		}
	})
	close(clusters)
	close(databases)
	wg.Wait()
	wall := time.Since(start)
	close(errs)
	for e := range errs {
		return nil, e
	}
	if err != nil {
		return nil, err
	}
	return &lbResult{wall: wall, counts: cnt.snapshot(), statements: lb.statements.Load(), conns: lb.conns.Load()}, nil
}

type lowerBound struct {
	cfg        lbConfig
	kube       kubernetes.Interface
	pg         versioned.Interface
	connector  *postgres.Connector
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
// group's, and CNPG's SQL for both on the worker's connection, connection
// ConfigMap, one status write.
func (lb *lowerBound) cluster(ctx context.Context, c *pgv1.PostgresCluster, conn **pgx.Conn) error {
	ns := c.Namespace
	c, err := lb.pg.PostgresV1alpha1().PostgresClusters(ns).Patch(ctx, c.Name, types.MergePatchType,
		finalizerPatch(c.ResourceVersion), metav1.PatchOptions{FieldManager: lbManager})
	if err != nil {
		return err
	}
	owner := *metav1.NewControllerRef(c, clusterGVK)
	mon := basicAuth(ns, naming.MonitorSecret(c.Name), naming.MonitorRole, owner)
	if _, err := lb.kube.CoreV1().Secrets(ns).Create(ctx, mon, metav1.CreateOptions{FieldManager: lbManager}); err != nil {
		return err
	}
	labels := map[string]string{"app.kubernetes.io/managed-by": lbManagedBy, "postgres.setpoint.dev/cluster": c.Name}
	ac := cnpgac.Cluster(c.Name, ns).WithLabels(labels).WithOwnerReferences(ownerApply(c, clusterGVK)).
		WithSpec(cnpgac.ClusterSpec().WithInstances(1).WithImageName("ghcr.io/cloudnative-pg/postgresql:15").
			WithEnableSuperuserAccess(false).
			WithPostgresConfiguration(cnpgac.PostgresConfiguration().WithPgHBA(controller.CertAuthHBA...)).
			WithStorage(cnpgac.StorageConfiguration().WithSize("1Gi")))
	if _, err := lb.pg.CNPGV1().Clusters(ns).Apply(ctx, ac, lbApply); err != nil {
		return err
	}
	rac := cnpgac.DatabaseRole(naming.MonitorRoleObject(c.Name), ns).WithLabels(labels).
		WithOwnerReferences(ownerApply(c, clusterGVK)).
		WithSpec(cnpgac.DatabaseRoleSpec().WithCluster(cnpgac.LocalObjectReference().WithName(c.Name)).
			WithName(naming.MonitorRole).WithLogin(true).WithInRoles("pg_monitor").
			WithPasswordSecret(cnpgac.LocalObjectReference().WithName(mon.Name)).
			WithComment(ownership.ClusterMarker(ns, c.Name)).
			WithDatabaseRoleReclaimPolicy(cnpgv1.DatabaseRoleReclaimDelete))
	if _, err := lb.pg.CNPGV1().DatabaseRoles(ns).Apply(ctx, rac, lbApply); err != nil {
		return err
	}
	gac := cnpgac.DatabaseRole(naming.CertAuthGroupObject(c.Name), ns).WithLabels(labels).
		WithOwnerReferences(ownerApply(c, clusterGVK)).
		WithSpec(cnpgac.DatabaseRoleSpec().WithCluster(cnpgac.LocalObjectReference().WithName(c.Name)).
			WithName(naming.CertAuthGroup).WithLogin(false).
			WithComment(ownership.ClusterMarker(ns, c.Name)).
			WithDatabaseRoleReclaimPolicy(cnpgv1.DatabaseRoleReclaimRetain))
	if _, err := lb.pg.CNPGV1().DatabaseRoles(ns).Apply(ctx, gac, lbApply); err != nil {
		return err
	}
	// CNPG's SQL for them. setpoint_monitor is one role per server, and the
	// shared backend is one server for every cluster: the loop creates a
	// role of the cluster's own name instead, at the same cost.
	role := pgx.Identifier{lb.cfg.w.prefix + c.Name + "_monitor"}.Sanitize()
	if err := lb.exec(ctx, conn,
		"CREATE ROLE "+role+roleAttrs+" IN ROLE pg_monitor PASSWORD "+quoteLiteral(string(mon.Data["password"])),
		"COMMENT ON ROLE "+role+" IS "+quoteLiteral(ownership.ClusterMarker(ns, c.Name))); err != nil {
		return err
	}
	group := pgx.Identifier{lb.cfg.w.prefix + c.Name + "_cert_auth"}.Sanitize()
	if err := lb.exec(ctx, conn, "CREATE ROLE "+group+" NOLOGIN",
		"COMMENT ON ROLE "+group+" IS "+quoteLiteral(ownership.ClusterMarker(ns, c.Name))); err != nil {
		return err
	}
	svc := func(s string) string { return fmt.Sprintf("%s%s.%s.svc", c.Name, s, ns) }
	cm := corev1ac.ConfigMap(c.Name+"-connection", ns).WithLabels(labels).
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
			MonitorSecretRef: &pgv1.LocalObjectReference{Name: mon.Name}},
		Conditions: conditions(c.Generation, "SecretReady", "ProvisionerReady", "MonitorReady", "ConfigMapReady"),
	}
	_, err = lb.pg.PostgresV1alpha1().PostgresClusters(ns).UpdateStatus(ctx, c, metav1.UpdateOptions{FieldManager: lbManager})
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

// database: finalizer, two Secrets, ConfigMap, a DatabaseRole per role,
// CNPG Database, CNPG's SQL (CREATE ROLE and COMMENT ON ROLE per role,
// CREATE DATABASE) on the worker's connection, the grant transaction on a
// connection to the new database, one status write.
func (lb *lowerBound) database(ctx context.Context, d *pgv1.PostgresDatabase, conn **pgx.Conn) error {
	ns := d.Namespace
	db := d.Spec.Databases[0].Name
	base := d.Name + "-" + db
	d, err := lb.pg.PostgresV1alpha1().PostgresDatabases(ns).Patch(ctx, d.Name, types.MergePatchType,
		finalizerPatch(d.ResourceVersion), metav1.PatchOptions{FieldManager: lbManager})
	if err != nil {
		return err
	}
	owner := *metav1.NewControllerRef(d, databaseGVK)
	admin := basicAuth(ns, base+"-admin", db+"_admin", owner)
	rw := basicAuth(ns, base+"-rw", db+"_rw", owner)
	for _, s := range []*corev1.Secret{admin, rw} {
		if _, err := lb.kube.CoreV1().Secrets(ns).Create(ctx, s, metav1.CreateOptions{FieldManager: lbManager}); err != nil {
			return err
		}
	}
	labels := map[string]string{"app.kubernetes.io/managed-by": lbManagedBy, "postgres.setpoint.dev/database": d.Name}
	cluster := d.Spec.ClusterRef.Name
	cm := corev1ac.ConfigMap(base+"-config", ns).WithLabels(labels).
		WithAnnotations(map[string]string{"postgres.setpoint.dev/deletion-policy": "Delete"}).
		WithOwnerReferences(ownerApply(d, databaseGVK)).
		WithData(map[string]string{"host": cluster + "-rw." + ns + ".svc", "ro-host": cluster + "-ro." + ns + ".svc",
			"port": "5432", "database": db, "admin-user": db + "_admin", "rw-user": db + "_rw",
			"ca-secret": cluster + "-ca", "ca-secret-key": "ca.crt", "sslmode": "verify-full",
			"admin-secret": admin.Name, "rw-secret": rw.Name})
	if _, err := lb.kube.CoreV1().ConfigMaps(ns).Apply(ctx, cm, lbApply); err != nil {
		return err
	}
	// One DatabaseRole per role, with the fields the operator's roleApply
	// sets: named "<cluster>.<role, '_' as '-'>", controlled by the
	// PostgresDatabase, login, setpoint's comment marker, the password
	// Secret and the reclaim policy of deletionPolicy Delete.
	for _, r := range []struct{ role, secret string }{{db + "_admin", admin.Name}, {db + "_rw", rw.Name}} {
		rac := cnpgac.DatabaseRole(cluster+"."+strings.ReplaceAll(r.role, "_", "-"), ns).WithLabels(labels).
			WithOwnerReferences(ownerApply(d, databaseGVK)).
			WithSpec(cnpgac.DatabaseRoleSpec().WithCluster(cnpgac.LocalObjectReference().WithName(cluster)).
				WithName(r.role).WithLogin(true).WithComment(ownership.PostgresMarker(ns, d.Name)).
				WithDatabaseRoleReclaimPolicy(cnpgv1.DatabaseRoleReclaimDelete).
				WithPasswordSecret(cnpgac.LocalObjectReference().WithName(r.secret)))
		if _, err := lb.pg.CNPGV1().DatabaseRoles(ns).Apply(ctx, rac, lbApply); err != nil {
			return err
		}
	}
	dac := cnpgac.Database(base, ns).WithLabels(labels).WithOwnerReferences(ownerApply(d, databaseGVK)).
		WithSpec(cnpgac.DatabaseSpec().WithCluster(cnpgac.LocalObjectReference().WithName(cluster)).
			WithName(db).WithOwner(db + "_admin").WithEnsure("present").WithDatabaseReclaimPolicy("delete"))
	if _, err := lb.pg.CNPGV1().Databases(ns).Apply(ctx, dac, lbApply); err != nil {
		return err
	}
	if err := lb.sql(ctx, db, ownership.PostgresMarker(ns, d.Name), string(admin.Data["password"]), string(rw.Data["password"]), conn); err != nil {
		return err
	}
	d = d.DeepCopy()
	d.Status = pgv1.PostgresDatabaseStatus{
		Phase: pgv1.PhaseReady, ObservedGeneration: d.Generation,
		Conditions: conditions(d.Generation, "ClusterReady", "SecretsReady", "ConfigMapsReady", "RolesReady", "DatabasesReady", "PrivilegesReady"),
		Databases: []pgv1.DatabaseStatus{{Name: db, Ready: true,
			AdminSecretRef: &pgv1.LocalObjectReference{Name: admin.Name}, RWSecretRef: &pgv1.LocalObjectReference{Name: rw.Name},
			ConfigMapRef: &pgv1.LocalObjectReference{Name: base + "-config"},
			Roles: []pgv1.RoleStatus{
				{Name: db + "_admin", Ensure: pgv1.RoleEnsurePresent, PasswordSecretRef: &pgv1.LocalObjectReference{Name: admin.Name}, Exists: true},
				{Name: db + "_rw", Ensure: pgv1.RoleEnsurePresent, PasswordSecretRef: &pgv1.LocalObjectReference{Name: rw.Name}, Exists: true},
			}}},
	}
	_, err = lb.pg.PostgresV1alpha1().PostgresDatabases(ns).UpdateStatus(ctx, d, metav1.UpdateOptions{FieldManager: lbManager})
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

func (lb *lowerBound) sql(ctx context.Context, db, marker, adminPw, rwPw string, conn **pgx.Conn) error {
	id := func(s string) string { return pgx.Identifier{s}.Sanitize() }
	admin, rw := id(db+"_admin"), id(db+"_rw")
	// What CNPG does for the DatabaseRoles and the Database, as the
	// stand-in runs it on the shared server: a new role is one CREATE ROLE
	// naming every attribute, then its comment.
	if err := lb.exec(ctx, conn,
		"CREATE ROLE "+admin+roleAttrs+" PASSWORD "+quoteLiteral(adminPw),
		"COMMENT ON ROLE "+admin+" IS "+quoteLiteral(marker),
		"CREATE ROLE "+rw+roleAttrs+" PASSWORD "+quoteLiteral(rwPw),
		"COMMENT ON ROLE "+rw+" IS "+quoteLiteral(marker),
		"CREATE DATABASE "+id(db)+" OWNER "+admin+" STRATEGY "+cnpgsim.SharedCreateStrategy,
	); err != nil {
		return err
	}
	// What the operator does: the grants and the database's comment
	// marker (grantPlan), in one transaction on a connection to the
	// database.
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
