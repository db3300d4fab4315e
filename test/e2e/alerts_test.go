package e2e_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/statemetrics"
)

// The alerts of charts/setpoint/files/alerts.yaml, each run by Prometheus'
// own promql engine (hack/tools/cmd/alertcheck, its own module) on real
// scrapes of a real operator: none fires on a healthy namespace; each
// fires, on the object it names, in the state it is for. Only the
// expressions are judged (a rule's `for` is the rule manager's clock).
// Not produced here: a replication lag (the stand-in runs no standby; the
// real tier's collectorSeesTheReplica reads the gauge); the overdue backup
// is TestBackupOverdueWhileScheduledBackupsHang's.
func TestAlertsOnOperatorScrapes(t *testing.T) {
	ns := kit.Namespace(t)
	lease := []string{"--namespace", ns, "--leader-election-namespace", ns, "--postgres-host-map", hostMap,
		"--postgres-sample-interval", "2s", "--resync-period", "2s"}
	op := startOperator(t, "alerts-leader", lease...)
	kit.Until(t, 30*time.Second, "alerts-leader leads", func(context.Context) (bool, error) {
		return op.metric(t, "setpoint_leader_election_leading") == 1, nil
	})
	standby := startOperator(t, "alerts-standby", lease...)

	setBackupCreds(t, ns, true)
	class := backupClass(t, ns, "")
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	waitBackupHealth(t, ns, pgv1.ReasonBackupsHealthy, "", 60*time.Second)
	kit.Until(t, 30*time.Second, "shop sampled", func(context.Context) (bool, error) {
		return op.metric(t, "setpoint_postgres_used_bytes", "namespace", ns, "postgrescluster", "shop") > 0, nil
	})

	t.Run("healthy: no alert fires", func(t *testing.T) {
		if firing := alertsOn(t, op); len(firing) != 0 {
			t.Errorf("alerts fire on a healthy namespace: %v", firing)
		}
	})

	t.Run("each state fires its alert", func(t *testing.T) {
		// A cluster of a class that does not exist, and a database of a
		// cluster that does not exist: never Ready.
		newCluster(t, ns, "classless", "no-such-class-"+ns, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
		lost := &pgv1.PostgresDatabase{ObjectMeta: metav1.ObjectMeta{Name: "lost", Namespace: ns},
			Spec: pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: "nowhere"}, Databases: []pgv1.DatabaseSpec{{Name: "lost"}}}}
		if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), lost, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		// A volume smaller than what an empty server holds (53.5 MiB), with
		// auto-grow already at its limit.
		tiny := resource.MustParse("32Mi")
		newCluster(t, ns, "tight", class, pgv1.ClusterSettings{Storage: &pgv1.StorageSpec{Size: &tiny,
			AutoGrow: &pgv1.AutoGrowSpec{Enabled: ptr.To(true), Limit: &tiny, Threshold: ptr.To[int32](90)}}}, pgv1.DeletionPolicyDelete)
		kit.WaitCluster(t, ns, "tight", pgv1.PhaseReady, 120*time.Second)
		kit.WaitClusterReason(t, ns, "tight", pgv1.ConditionStorageAtLimit, "AtLimit", 60*time.Second)
		breakArchiving(t, ns)
		waitBackupHealth(t, ns, pgv1.ReasonArchivingFailing, missingAccessKey, 60*time.Second)
		waitGauge(t, op, ns, "setpoint_cluster_wal_archiving_ok", 0)

		firing := alertsOn(t, op)
		for alert, object := range map[string][2]string{
			"SetpointClusterNotReady":        {"postgrescluster", "classless"},
			"SetpointDatabaseNotReady":       {"postgresdatabase", "lost"},
			"SetpointWALArchivingFailing":    {"postgrescluster", "shop"},
			"SetpointStorageNearlyFull":      {"postgrescluster", "tight"},
			"SetpointStorageAtAutoGrowLimit": {"postgrescluster", "tight"},
		} {
			if !slices.ContainsFunc(firing[alert], func(ls map[string]string) bool {
				return ls["namespace"] == ns && ls[object[0]] == object[1]
			}) {
				t.Errorf("%s does not fire for %s %s: %v", alert, object[0], object[1], firing[alert])
			}
		}
		for alert, object := range map[string][2]string{
			"SetpointClusterNotReady":  {"postgrescluster", "shop"},
			"SetpointDatabaseNotReady": {"postgresdatabase", "app"},
		} {
			if slices.ContainsFunc(firing[alert], func(ls map[string]string) bool { return ls[object[0]] == object[1] }) {
				t.Errorf("%s fires for the Ready %s %s", alert, object[0], object[1])
			}
		}
		if _, ok := firing["SetpointNoLeader"]; ok {
			t.Errorf("SetpointNoLeader fires on the leader's scrapes")
		}
	})

	t.Run("deleted objects leave no state series", func(t *testing.T) {
		kit.DeleteDatabase(t, ns, "lost")
		kit.DeleteCluster(t, ns, "classless")
		series := func(family, label, name string) int {
			n := 0
			for _, s := range op.samples(t, family) {
				if s.labels["namespace"] == ns && s.labels[label] == name {
					n++
				}
			}
			return n
		}
		kit.Until(t, 30*time.Second, "no series of the deleted objects", func(context.Context) (bool, error) {
			return series("setpoint_cluster_status_phase", "postgrescluster", "classless")+
				series("setpoint_cluster_status_condition", "postgrescluster", "classless")+
				series("setpoint_database_status_phase", "postgresdatabase", "lost")+
				series("setpoint_database_status_condition", "postgresdatabase", "lost") == 0, nil
		})
		if n := series("setpoint_cluster_status_phase", "postgrescluster", "shop"); n != len(statemetrics.Phases) {
			t.Errorf("shop has %d phase series, want one per phase (%d)", n, len(statemetrics.Phases))
		}
	})

	t.Run("an operator that may only read: errors", func(t *testing.T) {
		// Its own namespace and operator, acting as a user that may read
		// everything and write nothing: every pass that writes fails.
		ns := kit.Namespace(t)
		user := "e2e-readonly-" + ns
		readOnlyUser(t, user)
		ro := startOperator(t, "alerts-readonly", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap,
			"--kubeconfig", impersonatingKubeconfig(t, user))
		class := "e2e-" + ns
		newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15)})
		newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
		kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
		kit.Until(t, 60*time.Second, "passes ending in errors", func(context.Context) (bool, error) {
			return ro.metric(t, "setpoint_reconcile_total", "outcome", "retry") >= 5, nil
		})
		if firing := alertsOn(t, ro); len(firing["SetpointReconcileErrorsHigh"]) == 0 {
			t.Errorf("SetpointReconcileErrorsHigh does not fire: %v", firing)
		}
	})

	t.Run("a standby alone: no leader", func(t *testing.T) {
		// What Prometheus sees when the leader is gone and the standby has
		// not taken over: the standby's scrapes, leading 0.
		if firing := alertsOn(t, standby); len(firing["SetpointNoLeader"]) != 1 {
			t.Errorf("SetpointNoLeader on the standby's scrapes: %v", firing)
		}
	})
}

// alertsOn scrapes op three times, a second apart, and runs every alert's
// expression on the scrapes with alertcheck: the label sets each returns.
func alertsOn(t *testing.T, op *operatorProc) map[string][]map[string]string {
	t.Helper()
	type scrape struct {
		At   time.Time `json:"at"`
		Body string    `json:"body"`
	}
	var scrapes []scrape
	for i := range 3 {
		if i > 0 {
			time.Sleep(time.Second) // the scrape interval, not a wait for a state
		}
		code, body, err := scrapeMetrics(t.Context(), "http://"+op.metricsAddr+"/metrics", "")
		if err != nil || code != http.StatusOK {
			t.Fatalf("scrape %s: %d %v", op.name, code, err)
		}
		scrapes = append(scrapes, scrape{At: time.Now(), Body: body})
	}
	in, err := json.Marshal(scrapes)
	if err != nil {
		t.Fatal(err)
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Minute) // the first run compiles Prometheus
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "run", "./cmd/alertcheck", "-root", root)
	cmd.Dir = filepath.Join(root, "hack", "tools")
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("alertcheck: %v\n%s", err, stderr.String())
	}
	var firing map[string][]map[string]string
	if err := json.Unmarshal(stdout.Bytes(), &firing); err != nil {
		t.Fatalf("alertcheck's answer %q: %v", stdout.String(), err)
	}
	return firing
}

// readOnlyUser lets user get, list and watch everything, and nothing else.
func readOnlyUser(t *testing.T, user string) {
	t.Helper()
	role := &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: user},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}}}}
	binding := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: user},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: rbacv1.UserKind, Name: user}}}
	rbac := kube.RbacV1()
	if _, err := rbac.ClusterRoles().Create(t.Context(), role, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rbac.ClusterRoles().Delete(context.Background(), user, metav1.DeleteOptions{}) })
	if _, err := rbac.ClusterRoleBindings().Create(t.Context(), binding, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rbac.ClusterRoleBindings().Delete(context.Background(), user, metav1.DeleteOptions{}) })
}
