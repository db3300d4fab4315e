package e2e_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// newClass creates a class with superuser access on unless s says
// otherwise: the e2e tests play other actors in Postgres (a role created by
// hand, a database someone else made) as the superuser.
// The tests of superuser access itself use newClassAsGiven.
func newClass(t *testing.T, name string, s pgv1.ClusterSettings) {
	t.Helper()
	if s.SuperuserAccess == nil {
		s.SuperuserAccess = ptr.To(true)
	}
	newClassAsGiven(t, name, s)
}

// newClassAsGiven creates a class with exactly s: superuser access as
// CloudNativePG and setpoint default it, unless s sets it.
func newClassAsGiven(t *testing.T, name string, s pgv1.ClusterSettings) {
	t.Helper()
	c := &pgv1.PostgresClusterClass{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: pgv1.PostgresClusterClassSpec{ClusterSettings: s}}
	if _, err := pg.PostgresV1alpha1().PostgresClusterClasses().Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create class: %v", err)
	}
	t.Cleanup(func() {
		_ = pg.PostgresV1alpha1().PostgresClusterClasses().Delete(context.WithoutCancel(t.Context()), name, metav1.DeleteOptions{})
	})
}

func newCluster(t *testing.T, ns, name, class string, s pgv1.ClusterSettings, policy pgv1.DeletionPolicy) *pgv1.PostgresCluster {
	t.Helper()
	c := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec:       pgv1.PostgresClusterSpec{Class: class, ClusterSettings: s, ClusterDeletionPolicy: policy},
	}
	got, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create cluster: %v", err)
	}
	return got
}

// connectSuperuser opens a superuser session the way an application
// would: with the connection ConfigMap's service name, the superuser
// Secret and the CA Secret it names, TLS verified (the host map only
// redirects the address).
func connectSuperuser(t *testing.T, ns, cluster string) *pgx.Conn {
	t.Helper()
	cm, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), cluster+"-connection", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("connection ConfigMap: %v", err)
	}
	if cm.Data["rw-host"] != cluster+"-rw."+ns+".svc" || cm.Data["port"] != "5432" {
		t.Fatalf("ConfigMap data = %v", cm.Data)
	}
	return dial(t, ns, cluster, "postgres", cm.Data["superuser-secret"], cm.Data["ca-secret"])
}

// connectMonitor connects to database postgres as the cluster's
// setpoint_monitor role, with the Secret its status publishes: what
// setpoint's own checks log in as, and enough to read any setting.
func connectMonitor(t *testing.T, ns, cluster string) *pgx.Conn {
	t.Helper()
	c, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), cluster, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	r := c.Status.Resources
	if r == nil || r.MonitorSecretRef == nil {
		t.Fatalf("PostgresCluster %s publishes no monitor Secret: %+v", cluster, r)
	}
	return dial(t, ns, cluster, "postgres", r.MonitorSecretRef.Name, cluster+"-ca")
}

// dial connects to a cluster's primary with the credentials of secret,
// TLS verified against caSecret; the connection closes with the test.
func dial(t *testing.T, ns, cluster, database, secret, caSecret string) *pgx.Conn {
	t.Helper()
	sec, err := kube.CoreV1().Secrets(ns).Get(t.Context(), secret, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("Secret %s: %v", secret, err)
	}
	ca, err := kube.CoreV1().Secrets(ns).Get(t.Context(), caSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("CA Secret: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, err := postgres.NewConnector(postgres.NewHostMap(hostMap)).Connect(ctx, postgres.Target{
		Namespace: ns, Cluster: cluster, Database: database,
		User: string(sec.Data["username"]), Password: string(sec.Data["password"]), CACert: ca.Data["ca.crt"],
	})
	if err != nil {
		t.Fatalf("connect as %s: %v", sec.Data["username"], err)
	}
	t.Cleanup(func() { _ = conn.Close(context.WithoutCancel(t.Context())) })
	return conn
}

func show(t *testing.T, conn *pgx.Conn, param string) string {
	t.Helper()
	var v string
	if err := conn.QueryRow(t.Context(), "SHOW "+pgx.Identifier{param}.Sanitize()).Scan(&v); err != nil {
		t.Fatalf("SHOW %s: %v", param, err)
	}
	return v
}

func TestClusterLifecycle(t *testing.T) {
	ns := kit.Namespace(t)
	op := startOperator(t, "cluster-op", "--leader-elect=false", "--namespace", ns,
		"--postgres-host-map", hostMap, "--resync-period", "2s")
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{
		Instances:        ptr.To[int32](1),
		PostgresVersion:  ptr.To[int32](15),
		Storage:          &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("1Gi"))},
		PostgreSQLConfig: map[string]string{"work_mem": "8MB", "max_connections": "50"},
	})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)

	start := time.Now()
	c := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	t.Logf("PostgresCluster Ready %v after creation: %v passes, %v API writes (%v status updates)",
		time.Since(start).Round(time.Millisecond),
		op.metric(t, "setpoint_reconcile_total", "name", "postgrescluster"), writes(t, op),
		op.metric(t, "setpoint_api_requests_total", "resource", "postgresclusters/status", "verb", "update"))
	for _, cond := range c.Status.Conditions {
		if cond.Status != metav1.ConditionTrue {
			t.Errorf("Ready cluster has condition %s=%s (%s)", cond.Type, cond.Status, cond.Message)
		}
	}
	// Superuser access is off (the default): setpoint checked the
	// parameters as its monitor role, and so does the test.
	conn := connectMonitor(t, ns, "shop")
	if got := show(t, conn, "work_mem"); got != "8MB" {
		t.Errorf("work_mem = %s, want the class's 8MB", got)
	}

	t.Run("zero writes and zero SQL on resync", func(t *testing.T) {
		expectIdle(t, op, "postgrescluster")
	})

	t.Run("parameter change reaches the server", func(t *testing.T) {
		kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) {
			c.Spec.PostgreSQLConfig = map[string]string{"work_mem": "16MB"}
		})
		kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 60*time.Second)
		if got := show(t, connectMonitor(t, ns, "shop"), "work_mem"); got != "16MB" {
			t.Errorf("work_mem = %s after the change, want 16MB", got)
		}
	})

	t.Run("pooler on and off", func(t *testing.T) {
		kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) {
			c.Spec.ConnectionPooler = &pgv1.ConnectionPoolerSpec{Enabled: ptr.To(true), Instances: ptr.To[int32](2), PoolMode: pgv1.PoolModeTransaction}
		})
		c := kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 60*time.Second)
		if c.Status.ConnectionPoolerStatus == nil || !c.Status.ConnectionPoolerStatus.Enabled {
			t.Errorf("pooler status = %+v", c.Status.ConnectionPoolerStatus)
		}
		for _, n := range []string{"shop-pooler-rw", "shop-pooler-ro"} {
			p, err := pg.CNPGV1().Poolers(ns).Get(t.Context(), n, metav1.GetOptions{})
			if err != nil || p.Spec.PgBouncer.PoolMode != "transaction" || *p.Spec.Instances != 2 {
				t.Fatalf("pooler %s: %v %+v", n, err, p)
			}
		}
		cm, _ := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "shop-connection", metav1.GetOptions{})
		if cm.Data["pooler-rw-host"] != "shop-pooler-rw."+ns+".svc" {
			t.Errorf("ConfigMap lacks the pooler endpoint: %v", cm.Data)
		}
		kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) { c.Spec.ConnectionPooler.Enabled = ptr.To(false) })
		for _, n := range []string{"shop-pooler-rw", "shop-pooler-ro"} {
			kit.Gone(t, "pooler "+n, func(ctx context.Context) error {
				_, err := pg.CNPGV1().Poolers(ns).Get(ctx, n, metav1.GetOptions{})
				return err
			})
		}
		kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 60*time.Second)
	})

	t.Run("backups on and off", func(t *testing.T) {
		kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) {
			c.Spec.Backup = &pgv1.BackupSpec{Schedule: "0 2 * * *", ObjectStore: &pgv1.ObjectStoreSpec{
				DestinationPath: "s3://backups/shop", CredentialsSecretName: "backup-creds", RetentionPolicy: "7d"}}
		})
		kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 60*time.Second)
		sb, err := pg.CNPGV1().ScheduledBackups(ns).Get(t.Context(), "shop-backup", metav1.GetOptions{})
		if err != nil || sb.Spec.Schedule != "0 0 2 * * *" || sb.Spec.Method != "plugin" {
			t.Fatalf("scheduled backup: %v %+v", err, sb)
		}
		if _, err := pg.BarmanCloudV1().ObjectStores(ns).Get(t.Context(), "shop-backup", metav1.GetOptions{}); err != nil {
			t.Fatalf("object store: %v", err)
		}
		cl, _ := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
		if !slices.ContainsFunc(cl.Spec.Plugins, func(p cnpgv1.PluginConfiguration) bool { return p.Name == "barman-cloud.cloudnative-pg.io" }) {
			t.Errorf("CNPG Cluster has no barman-cloud plugin: %+v", cl.Spec.Plugins)
		}
		kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) { c.Spec.Backup = nil })
		kit.Gone(t, "scheduled backup", func(ctx context.Context) error {
			_, err := pg.CNPGV1().ScheduledBackups(ns).Get(ctx, "shop-backup", metav1.GetOptions{})
			return err
		})
		kit.Gone(t, "object store", func(ctx context.Context) error {
			_, err := pg.BarmanCloudV1().ObjectStores(ns).Get(ctx, "shop-backup", metav1.GetOptions{})
			return err
		})
		kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 60*time.Second)
	})

	t.Run("stopped postgres shows and recovers", func(t *testing.T) {
		if err := sim.StopServer(t.Context(), ns, "shop"); err != nil {
			t.Fatal(err)
		}
		c := kit.WaitCluster(t, ns, "shop", pgv1.PhasePending, 60*time.Second)
		// CNPG reports the failover (the stand-in's "Failing over"), or,
		// before its status changes, Postgres cannot be reached.
		if msg := readyMessage(c); !strings.Contains(msg, "Failing over") && !strings.HasPrefix(msg, "PostgresUnreachable: ") {
			t.Errorf("status while stopped: %q, want CNPG's \"Failing over\" or PostgresUnreachable", msg)
		}
		if err := sim.StartServer(t.Context(), ns, "shop"); err != nil {
			t.Fatal(err)
		}
		kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 60*time.Second)
	})

	t.Run("delete policy removes the CNPG cluster", func(t *testing.T) {
		if err := pg.PostgresV1alpha1().PostgresClusters(ns).Delete(t.Context(), "shop", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		kit.Gone(t, "CNPG cluster", func(ctx context.Context) error {
			_, err := pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
			return err
		})
		kit.Gone(t, "PostgresCluster", func(ctx context.Context) error {
			_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
			return err
		})
	})
}

func readyMessage(c *pgv1.PostgresCluster) string {
	for _, cond := range c.Status.Conditions {
		if cond.Type == pgv1.ConditionReady {
			return cond.Reason + ": " + cond.Message
		}
	}
	return ""
}

// expectIdle checks that resyncs of converged objects (the operator runs
// with --resync-period 2s) cause passes but no API write and no SQL.
func expectIdle(t *testing.T, op *operatorProc, queue string) {
	t.Helper()
	settle(t, op)
	w, sql := writesBy(t, op), op.metric(t, "setpoint_pipeline_statements_total")
	passes := op.metric(t, "setpoint_reconcile_total", "name", queue)
	time.Sleep(5 * time.Second) // two resync periods
	if d := diffCounts(w, writesBy(t, op)); len(d) != 0 {
		t.Errorf("resyncs of converged objects wrote: %s", strings.Join(d, ", "))
	}
	if d := op.metric(t, "setpoint_pipeline_statements_total") - sql; d != 0 {
		t.Errorf("resyncs of converged objects ran %v SQL statements", d)
	}
	if op.metric(t, "setpoint_reconcile_total", "name", queue) == passes {
		t.Errorf("no %s pass ran during the resyncs: the check proves nothing", queue)
	}
}

// settle waits until the operator has made no write for two seconds: the
// last Event of a transition is sent asynchronously, and the stand-in may
// still report a change that is real. Converged means nothing is in flight.
// Passes are not waited for: tests of resyncs run them on purpose.
func settle(t *testing.T, op *operatorProc) {
	t.Helper()
	last, quiet := writes(t, op), 0
	deadline := time.Now().Add(30 * time.Second)
	for quiet < 4 && time.Now().Before(deadline) {
		time.Sleep(500 * time.Millisecond)
		if n := writes(t, op); n != last {
			last, quiet = n, 0
		} else {
			quiet++
		}
	}
	if quiet < 4 {
		t.Fatalf("the operator kept writing for 30 s: not converged")
	}
}

// settleIdle waits, as settle does, and also for the passes to stop: no
// write and no pass for longer than the cluster controller holds back a
// CNPG status that has just changed (phaseSettle, 2 s). That recheck is a
// pass without a write that settle alone cannot see coming; a window that
// claims "nothing ran" must start after it. So must a component's 5 s
// recheck (provisionRecheck): queued while the cluster was still provisioning, it fires
// once even when an event has already brought the cluster to Ready (the
// delaying queue keeps it), and a 3 s quiet let TestCollector's window
// open 0.4 s before it ran.
func settleIdle(t *testing.T, op *operatorProc) {
	t.Helper()
	const quietFor = 6 * time.Second
	count := func() float64 {
		n := writes(t, op)
		for _, v := range passesBy(t, op) {
			n += v
		}
		return n
	}
	last, since := count(), time.Now()
	deadline := time.Now().Add(45 * time.Second)
	for time.Since(since) < quietFor {
		if time.Now().After(deadline) {
			t.Fatalf("the operator kept writing or reconciling for 45 s: not idle")
		}
		time.Sleep(250 * time.Millisecond)
		if n := count(); n != last {
			last, since = n, time.Now()
		}
	}
}

// passesBy counts the operator's reconcile passes by "queue outcome", so a
// failed quiet-window check says what kind of pass ran.
func passesBy(t *testing.T, op *operatorProc) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, s := range op.samples(t, "setpoint_reconcile_total") {
		out[s.labels["name"]+" "+s.labels["outcome"]] += s.value
	}
	return out
}

// writes is the operator's count of mutating API requests, Leases aside.
func writes(t *testing.T, op *operatorProc) float64 {
	t.Helper()
	var n float64
	for _, v := range writesBy(t, op) {
		n += v
	}
	return n
}

// writesBy counts the operator's mutating API requests, Leases aside, by
// "verb resource code".
func writesBy(t *testing.T, op *operatorProc) map[string]float64 {
	t.Helper()
	out := map[string]float64{}
	for _, s := range op.samples(t, "setpoint_api_requests_total") {
		switch s.labels["verb"] {
		case "create", "update", "patch", "apply", "delete":
			if s.labels["resource"] != "leases" {
				out[s.labels["verb"]+" "+s.labels["resource"]+" "+s.labels["code"]] += s.value
			}
		}
	}
	return out
}

// diffCounts lists what grew from before to after.
func diffCounts(before, after map[string]float64) []string {
	var out []string
	for k, v := range after {
		if d := v - before[k]; d != 0 {
			out = append(out, fmt.Sprintf("%v× %s", d, k))
		}
	}
	slices.Sort(out)
	return out
}
