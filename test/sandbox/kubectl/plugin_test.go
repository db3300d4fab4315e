package kubectl_test

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/yaml"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/kubectl/commands"
	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// One sandbox for every command: starting it costs most of the test.
func TestPlugin(t *testing.T) {
	w := start(t)
	t.Run("status", w.testStatus)
	t.Run("explain", w.testExplain)
	t.Run("conn", w.testConn)
	t.Run("psql", w.testPsql)
	t.Run("rotate", w.testRotate)
	t.Run("backup and restore", w.testBackupRestore)
	t.Run("report", w.testReport)
	t.Run("restart", w.testRestart)
	// Last: it adds a Pod the stand-in does not expect.
	t.Run("psql port-forward reaches the API server", w.testPortForward)
}

// status -o json reports what the operator and the stand-in wrote.
func (w *world) testStatus(t *testing.T) {
	res := w.run(t, nil, "status", "shop", "-o", "json")
	if res.err != nil {
		t.Fatalf("status: %v\n%s", res.err, res.errOut)
	}
	var r inspect.ClusterReport
	if err := json.Unmarshal([]byte(res.out), &r); err != nil {
		t.Fatalf("decode %s: %v", res.out, err)
	}
	pc, err := w.pg.PostgresV1alpha1().PostgresClusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Phase != "Ready" || !r.Current || r.Class != "standard" {
		t.Errorf("phase %q current %v class %q, want Ready, current, standard", r.Phase, r.Current, r.Class)
	}
	in := r.Instances
	if in.CNPGCluster != "shop" || in.Desired != 2 || in.Ready != 2 || in.Primary == "" || in.Primary != pc.Status.CurrentPrimary {
		t.Errorf("instances %+v, want 2/2 with primary %q", in, pc.Status.CurrentPrimary)
	}
	if !r.Pooler.Enabled || r.Pooler.ReadWrite == nil || r.Pooler.ReadWrite.Name != "shop-pooler-rw" ||
		r.Pooler.ReadWrite.Phase != pc.Status.ConnectionPoolerStatus.ReadWrite || r.Pooler.ReadWrite.Instances != 2 {
		t.Errorf("pooler %+v (status %+v)", r.Pooler, pc.Status.ConnectionPoolerStatus)
	}
	if r.Backup.ObjectStore != "shop-backup" || r.Backup.ServerName != "shop" {
		t.Errorf("backup %+v", r.Backup)
	}
	if len(r.Databases) != 1 || r.Databases[0].Name != "shop-app" || r.Databases[0].Phase != "Ready" {
		t.Fatalf("databases %+v", r.Databases)
	}
	var chain []string
	for _, c := range r.Databases[0].Conditions {
		chain = append(chain, c.Type+"="+c.Status)
	}
	var want []string
	for _, c := range append(slices.Clone(pgv1.DatabaseConditions), pgv1.ConditionReady) {
		want = append(want, c+"=True")
	}
	if got, want := strings.Join(chain, ","), strings.Join(want, ","); got != want {
		t.Errorf("database chain %s, want %s", got, want)
	}
	text := w.run(t, nil, "status", "shop")
	if text.err != nil || !strings.Contains(text.out, "PostgresCluster default/shop (class standard): Ready\n") ||
		!strings.Contains(text.out, "PostgresDatabase shop-app (orders, catalog): Ready\n") {
		t.Errorf("status text (%v):\n%s", text.err, text.out)
	}
	t.Logf("kubectl setpoint status shop:\n%s", text.out)
}

// explain says Ready for the sample, and for a database whose cluster has
// no class walks into the cluster and names the missing class.
func (w *world) testExplain(t *testing.T) {
	res := w.run(t, nil, "why", "shop-app")
	if res.err != nil || res.out != "PostgresDatabase default/shop-app is Ready.\n" {
		t.Fatalf("why shop-app: %v\n%s", res.err, res.out)
	}
	pc := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Name: "lonely", Namespace: ns}, Spec: pgv1.PostgresClusterSpec{Class: "missing"}}
	if _, err := w.pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), pc, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	db := &pgv1.PostgresDatabase{ObjectMeta: metav1.ObjectMeta{Name: "lonely-app", Namespace: ns},
		Spec: pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: "lonely"}, Databases: []pgv1.DatabaseSpec{{Name: "stock"}}}}
	if _, err := w.pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), db, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	w.waitDatabase(t, "lonely-app", func(db *pgv1.PostgresDatabase) bool {
		return hasCondition(db.Status.Conditions, pgv1.ConditionClusterReady, metav1.ConditionFalse)
	})
	res = w.run(t, nil, "explain", "lonely-app", "-o", "json")
	if res.err != nil {
		t.Fatalf("explain lonely-app: %v\n%s", res.err, res.errOut)
	}
	var e inspect.Explanation
	if err := json.Unmarshal([]byte(res.out), &e); err != nil {
		t.Fatalf("decode %s: %v", res.out, err)
	}
	if e.Ready || e.Condition == nil || e.Condition.Type != "ClusterReady" || len(e.Causes) != 1 || e.Causes[0].Object != "PostgresCluster lonely" {
		t.Fatalf("explanation %s", res.out)
	}
	if e.Cluster == nil || e.Cluster.Condition == nil || e.Cluster.Condition.Reason != "ClassNotFound" ||
		e.Cluster.Advice != inspect.Advice("ClassNotFound") {
		t.Fatalf("cluster explanation %s", res.out)
	}
	text := w.run(t, nil, "explain", "lonely-app")
	if !strings.Contains(text.out, "blocked at:  ClusterReady=False") || !strings.Contains(text.out, "ClassNotFound") ||
		!strings.Contains(text.out, "what to do:  create the PostgresClusterClass") {
		t.Errorf("explain text:\n%s", text.out)
	}
	t.Logf("kubectl setpoint explain lonely-app:\n%s", text.out)
	res = w.run(t, nil, "explain", "--cluster", "lonely", "-o", "yaml")
	var ce inspect.Explanation
	if err := yaml.Unmarshal([]byte(res.out), &ce); err != nil || res.err != nil {
		t.Fatalf("explain --cluster lonely: %v %v\n%s", res.err, err, res.out)
	}
	if ce.Object != "PostgresCluster default/lonely" || ce.Condition == nil || ce.Condition.Reason != "ClassNotFound" {
		t.Fatalf("explain --cluster lonely:\n%s", res.out)
	}
}

// conn prints the URI from the ConfigMap; the password only when asked,
// and then the one in the role's Secret.
func (w *world) testConn(t *testing.T) {
	res := w.run(t, nil, "conn", "shop-app", "--database", "orders")
	if want := "postgresql://orders_rw@shop-rw.default.svc:5432/orders?sslmode=verify-full\n"; res.err != nil || res.out != want {
		t.Fatalf("conn: %v\n%q, want %q", res.err, res.out, want)
	}
	sec, err := w.kube.CoreV1().Secrets(ns).Get(t.Context(), "shop-app-orders-admin", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	password := string(sec.Data["password"])
	if strings.Contains(res.out+res.errOut, password) {
		t.Fatal("conn without --show-password printed a password")
	}
	res = w.run(t, nil, "conn", "shop-app", "--database", "orders", "--role", "admin", "--show-password", "--pooler")
	u, err := url.Parse(strings.TrimSpace(res.out))
	if res.err != nil || err != nil {
		t.Fatalf("conn --show-password: %v %v\n%s", res.err, err, res.out)
	}
	if got, _ := u.User.Password(); got != password || u.User.Username() != "orders_admin" || u.Host != "shop-pooler-rw.default.svc:5432" {
		t.Fatalf("URI %s: want orders_admin with the Secret's password on the pooler", u.Redacted())
	}
	res = w.run(t, nil, "conn", "shop-app")
	if res.err == nil || !strings.Contains(res.err.Error(), "choose one with --database") {
		t.Errorf("conn without --database on two databases: %v", res.err)
	}
}

// psql runs the real psql with the role's credentials from the
// environment, verifying the server against the cluster's CA (verify-full
// on the Service's name), through a relay in place of the port-forward.
func (w *world) testPsql(t *testing.T) {
	if _, err := exec.LookPath("psql"); err != nil {
		t.Fatalf("psql is not installed: %v", err)
	}
	fw := &testkit.HostMapForwarder{Hosts: postgres.NewHostMap(w.sb.HostMapPath)}
	res := w.run(t, &commands.Options{Forwarder: fw}, "psql", "shop-app", "--database", "catalog", "--role", "admin",
		"--", "-XAtc", "select current_user || ' ' || current_database() || ' ' || (select ssl from pg_stat_ssl where pid = pg_backend_pid())")
	if res.err != nil {
		t.Fatalf("psql: %v\n%s", res.err, res.errOut)
	}
	if got := strings.TrimSpace(res.out); got != "catalog_admin catalog true" {
		t.Fatalf("psql printed %q, want \"catalog_admin catalog true\"", got)
	}
	if s := fw.Services(); len(s) != 1 || s[0] != "default/shop-rw:5432" {
		t.Fatalf("forwarded %v, want default/shop-rw:5432", s)
	}
	// psql's command line holds only the arguments given after --; the
	// password is in its environment (a script in psql's place shows both).
	script := filepath.Join(t.TempDir(), "psql")
	body := "#!/bin/sh\necho \"args: $*\"\n[ \"$PGPASSWORD\" = \"$EXPECTED\" ] && echo password in environment\n"
	if err := os.WriteFile(script, []byte(body), 0o700); err != nil {
		t.Fatal(err)
	}
	sec, err := w.kube.CoreV1().Secrets(ns).Get(t.Context(), "shop-app-catalog-rw", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("EXPECTED", string(sec.Data["password"]))
	res = w.run(t, &commands.Options{Forwarder: fw, Psql: script}, "psql", "shop-app", "--database", "catalog", "--", "-c", "select 1")
	if want := "args: -c select 1\npassword in environment\n"; res.err != nil || res.out != want {
		t.Fatalf("psql stand-in printed %q (%v), want %q", res.out, res.err, want)
	}
}

// rotate writes the annotations docs/guides/rotation-and-external-secrets.md
// documents; the operator then
// rotates exactly the roles asked for.
func (w *world) testRotate(t *testing.T) {
	res := w.run(t, nil, "rotate", "shop-app", "--roles", "rw", "--id", "plugin-r1")
	if res.err != nil {
		t.Fatalf("rotate: %v", res.err)
	}
	for _, name := range []string{"shop-app-orders-rw", "shop-app-catalog-rw"} {
		waitSecret(t, w, name, func(s *corev1.Secret) bool {
			return s.Annotations["postgres.setpoint.dev/password-rotated-for"] == "plugin-r1"
		})
	}
	admin, err := w.kube.CoreV1().Secrets(ns).Get(t.Context(), "shop-app-orders-admin", metav1.GetOptions{})
	if err != nil || admin.Annotations["postgres.setpoint.dev/password-rotated-for"] == "plugin-r1" {
		t.Fatalf("admin Secret rotated too (%v)", err)
	}
	// A rotation of every role removes the narrowing annotation.
	if res := w.run(t, nil, "rotate", "shop-app", "--id", "plugin-r2"); res.err != nil {
		t.Fatal(res.err)
	}
	db, err := w.pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "shop-app", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := db.Annotations[pgv1.RotatePasswordsRolesAnnotation]; ok || db.Annotations[pgv1.RotatePasswordsAnnotation] != "plugin-r2" {
		t.Fatalf("annotations %v", db.Annotations)
	}
	waitSecret(t, w, "shop-app-orders-admin", func(s *corev1.Secret) bool {
		return s.Annotations["postgres.setpoint.dev/password-rotated-for"] == "plugin-r2"
	})
}

// backup asks for a Backup and waits for setpoint's answer; restore prints
// the documented manifest and, with --apply, creates a cluster that the
// operator restores.
func (w *world) testBackupRestore(t *testing.T) {
	res := w.run(t, nil, "backup", "shop", "--id", "plugin-b1", "--wait", "1m")
	if res.err != nil || !strings.Contains(res.out, "backup.postgresql.cnpg.io/shop-backup-") {
		t.Fatalf("backup: %v\n%s", res.err, res.out)
	}
	res = w.run(t, nil, "restore", "shop", "--as", "shop-copy", "--to", "2026-11-30T17:45:00+01:00")
	if res.err != nil {
		t.Fatalf("restore: %v", res.err)
	}
	var printed pgv1.PostgresCluster
	if err := yaml.UnmarshalStrict([]byte(res.out), &printed); err != nil {
		t.Fatalf("decode manifest %s: %v", res.out, err)
	}
	r := printed.Spec.Restore
	if printed.Name != "shop-copy" || printed.Spec.Class != "standard" || r == nil || r.Source != "shop" ||
		r.TargetTime == nil || !r.TargetTime.Equal(&metav1.Time{Time: time.Date(2026, 11, 30, 16, 45, 0, 0, time.UTC)}) {
		t.Fatalf("manifest:\n%s", res.out)
	}
	waitBackupCompleted(t, w)
	if res := w.run(t, nil, "restore", "shop", "--as", "shop-copy", "--apply"); res.err != nil {
		t.Fatalf("restore --apply: %v", res.err)
	}
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		pc, err := w.pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop-copy", metav1.GetOptions{})
		return err == nil && pc.Status.Phase == pgv1.PhaseReady && pc.Status.RestoredFrom != nil && pc.Status.RestoredFrom.Source == "shop", nil
	})
	if err != nil {
		t.Fatalf("shop-copy not restored from shop: %v", err)
	}
}

// The real port-forward goes through the API server to the Pod behind
// the Service: the sandbox has no kubelet, so the API server answers that
// it cannot reach the Pod's node. Everything before that (Service to Pod,
// target port, the SPDY upgrade request on pods/portforward) is real.
func (w *world) testPortForward(t *testing.T) {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "shop-1", Namespace: ns,
			Labels: map[string]string{"cnpg.io/cluster": "shop", "cnpg.io/instanceRole": "primary"}},
		Spec: corev1.PodSpec{NodeName: "no-such-node", Containers: []corev1.Container{{Name: "postgres", Image: "postgres"}}},
	}
	created, err := w.kube.CoreV1().Pods(ns).Create(t.Context(), pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	created.Status.Phase = corev1.PodRunning
	if _, err := w.kube.CoreV1().Pods(ns).UpdateStatus(t.Context(), created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	res := w.run(t, &commands.Options{Psql: "/bin/false"}, "psql", "shop-app", "--database", "orders")
	if res.err == nil || !strings.Contains(res.err.Error(), "port-forward to pod default/shop-1 port 5432") ||
		!strings.Contains(res.err.Error(), "no-such-node") {
		t.Fatalf("psql without a kubelet: %v, want the API server failing to reach node no-such-node for pod shop-1", res.err)
	}
	t.Logf("psql without a kubelet: %v", res.err)
}

func hasCondition(conds []metav1.Condition, t string, status metav1.ConditionStatus) bool {
	for _, c := range conds {
		if c.Type == t {
			return c.Status == status
		}
	}
	return false
}

func waitSecret(t *testing.T, w *world, name string, ok func(*corev1.Secret) bool) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		s, err := w.kube.CoreV1().Secrets(ns).Get(ctx, name, metav1.GetOptions{})
		return err == nil && ok(s), nil
	})
	if err != nil {
		t.Fatalf("Secret %s: %v", name, err)
	}
}

func waitBackupCompleted(t *testing.T, w *world) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, 2*time.Minute, true, func(ctx context.Context) (bool, error) {
		pc, err := w.pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil || pc.Status.BackupStatus == nil || pc.Status.BackupStatus.LastRequest == nil {
			return false, nil
		}
		b, err := w.pg.CNPGV1().Backups(ns).Get(ctx, pc.Status.BackupStatus.LastRequest.Backup, metav1.GetOptions{})
		return err == nil && b.Status.Phase == "completed", nil
	})
	if err != nil {
		t.Fatalf("on-demand Backup not completed: %v", err)
	}
}
