package e2e_test

import (
	"context"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/tools/clientcmd"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// applyManifests applies every YAML file of dir.
func applyManifests(t *testing.T, dir string) {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if _, err := envtest.ApplyFiles(t.Context(), env.Config, "e2e", files...); err != nil {
		t.Fatal(err)
	}
}

// impersonatingKubeconfig writes a kubeconfig that acts as user, so only
// the RBAC bound to that user applies.
func impersonatingKubeconfig(t *testing.T, user string) string {
	t.Helper()
	cfg, err := clientcmd.LoadFromFile(env.KubeconfigPath)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range cfg.AuthInfos {
		a.Impersonate = user
	}
	path := filepath.Join(t.TempDir(), "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// serviceAccountKubeconfig writes a kubeconfig that acts as the operator's
// ServiceAccount (by impersonation), so only the shipped RBAC applies.
func serviceAccountKubeconfig(t *testing.T) string {
	t.Helper()
	return impersonatingKubeconfig(t, "system:serviceaccount:setpoint-system:setpoint")
}

// permissionsCheckedByAdmission are rules no request of the operator
// names: the OwnerReferencesPermissionEnforcement admission plugin (on in
// envtest, as on OpenShift) checks update on the owner's finalizers when a
// child carries a blockOwnerDeletion owner reference. Without them every
// owned child's apply is Forbidden there, which the first half catches.
var permissionsCheckedByAdmission = map[string]bool{
	"postgresclusters/finalizers update":  true,
	"postgresdatabases/finalizers update": true,
}

// permissionsForALostRace are rules only a race uses: a DatabaseRole's
// first write is a create, and only when the name turns out taken by an
// object the cache had not seen yet is it read (get) and judged. The
// lifecycle cannot provoke that race on demand; the unit test
// TestRoleCreateLostToAnUnseenObjectIsAConflict does.
var permissionsForALostRace = map[string]bool{
	"databaseroles get": true,
}

// permissionsOfAMajorUpgrade are the rules only a major upgrade uses
// (pkg/controller/cluster/upgrade*.go): the preflight's probe Pod, which
// the sandbox has no kubelet to run, the catalog read for its image, and
// the failed pg_upgrade Job with its Pod's log. The lifecycle does no major
// upgrade (the stand-in has no kubelet to run the probe), so this test
// cannot see them used. The real tier runs the release's install.yaml, so
// its major-upgrade tests send every one of these under the shipped RBAC
// (the probe, the catalog read, the failed Job and its log).
var permissionsOfAMajorUpgrade = map[string]bool{
	"pods get": true, "pods list": true, "pods create": true, "pods delete": true, "pods/log get": true,
	"jobs list": true, "imagecatalogs get": true, "clusterimagecatalogs get": true,
}

// listBehindWatch: list on a resource an informer watched. client-go's
// informers stream their initial list over the watch (WatchListClient,
// sendInitialEvents) where the API server supports it, as this one does,
// so no list request is sent; where it does not, or when the stream fails,
// they fall back to a list, which must then be allowed.
func listBehindWatch(p string, used map[string]bool) bool {
	resource, ok := strings.CutSuffix(p, " list")
	return ok && used[resource+" watch"]
}

// The shipped RBAC is exact: the operator's whole lifecycle (two replicas
// with leader election; class, clusters with every child kind, databases;
// updates that add and remove children; deletion with both policies of
// clusters and databases; /metrics scraped over HTTPS) passes as its
// ServiceAccount without one Forbidden, and every verb on every resource
// the ClusterRole and the leader-election Role grant was used by it,
// counted from setpoint_api_requests_total (informers' list and watch
// included).
func TestShippedRBACSuffices(t *testing.T) {
	applyManifests(t, filepath.Join("..", "..", "manifests", "rbac"))
	ns := kit.Namespace(t)
	lease := "setpoint-rbac-" + ns
	args := []string{"--kubeconfig", serviceAccountKubeconfig(t), "--namespace", ns,
		"--leader-election-id", lease, "--postgres-host-map", hostMap, "--metrics-secure=true"}
	a := startOperator(t, "rbac-a", args...)
	waitLeaseHolder(t, lease, "rbac-a")
	b := startOperator(t, "rbac-b", args...) // the standby watches the Lease
	token := kit.MetricsReaderToken(t, ns)
	a.metricsToken, b.metricsToken = token, token

	fullLifecycle(t, ns)

	// The leader-election gauge: the leader reads 1, the standby 0.
	for op, want := range map[*operatorProc]float64{a: 1, b: 0} {
		got := op.samples(t, "setpoint_leader_election_leading")
		if len(got) != 1 || got[0].labels["lease"] != lease || got[0].value != want {
			t.Errorf("%s: setpoint_leader_election_leading %+v, want one series of lease %s at %v", op.name, got, lease, want)
		}
	}

	used := map[string]bool{}
	for _, op := range []*operatorProc{a, b} {
		for _, s := range op.samples(t, "setpoint_api_requests_total") {
			if s.labels["code"] == "Forbidden" {
				t.Errorf("%s was refused %v %s %s requests under the shipped RBAC", op.name, s.value, s.labels["verb"], s.labels["resource"])
			}
			for _, v := range rbacVerbs(s.labels["verb"]) {
				used[s.labels["resource"]+" "+v] = true
			}
		}
	}
	granted := shippedPermissions(t)
	var unused, ungranted []string
	for p := range granted {
		if !used[p] && !permissionsCheckedByAdmission[p] && !permissionsForALostRace[p] && !permissionsOfAMajorUpgrade[p] && !listBehindWatch(p, used) {
			unused = append(unused, p)
		}
	}
	for p := range used {
		if !granted[p] && !strings.HasPrefix(p, "nonresource ") {
			ungranted = append(ungranted, p)
		}
	}
	sort.Strings(unused)
	sort.Strings(ungranted)
	if len(unused) > 0 {
		t.Errorf("the shipped RBAC grants what the lifecycle never used: %s", strings.Join(unused, "; "))
	}
	if len(ungranted) > 0 {
		t.Errorf("the operator sent requests the shipped RBAC does not grant: %s", strings.Join(ungranted, "; "))
	}
	usedList := slices.Sorted(func(yield func(string) bool) {
		for p := range used {
			if !yield(p) {
				return
			}
		}
	})
	t.Logf("used: %s", strings.Join(usedList, "; "))
}

// rbacVerbs maps a verb of the request metric onto the RBAC verbs it is
// authorized as: server-side apply is a patch, and a create when the
// object does not exist yet (the lifecycle creates every applied kind).
func rbacVerbs(verb string) []string {
	if verb == "apply" {
		return []string{"patch", "create"}
	}
	return []string{verb}
}

// shippedPermissions reads the ClusterRole and leader-election Role as
// applied, as "resource verb" (resource names are unique across the
// groups setpoint uses, so the group is left out).
func shippedPermissions(t *testing.T) map[string]bool {
	t.Helper()
	cr, err := kube.RbacV1().ClusterRoles().Get(t.Context(), "setpoint", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	role, err := kube.RbacV1().Roles("setpoint-system").Get(t.Context(), "setpoint-leader-election", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, r := range append(slices.Clone(cr.Rules), role.Rules...) {
		if len(r.NonResourceURLs) > 0 || slices.Contains(r.Verbs, rbacv1.VerbAll) || slices.Contains(r.Resources, rbacv1.ResourceAll) {
			t.Errorf("rule %+v is not least privilege", r)
		}
		for _, res := range r.Resources {
			for _, v := range r.Verbs {
				out[res+" "+v] = true
			}
		}
	}
	return out
}

// fullLifecycle drives everything the operator can do in ns: a class; a
// cluster with a pooler, backups to object storage and monitoring (a
// PodMonitor and a metrics Service) that is updated (a parameter; pooler, backups and monitoring
// off again) and deleted with policy Delete;
// a cluster deleted with policy Retain; a PostgresDatabase with one
// database of each deletion policy, deleted.
func fullLifecycle(t *testing.T, ns string) {
	t.Helper()
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15)})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{
		ConnectionPooler: &pgv1.ConnectionPoolerSpec{Enabled: ptr.To(true), Instances: ptr.To[int32](1), PoolMode: pgv1.PoolModeTransaction},
		Backup: &pgv1.BackupSpec{Schedule: "0 2 * * *", ObjectStore: &pgv1.ObjectStoreSpec{
			DestinationPath: "s3://backups/shop", CredentialsSecretName: "backup-creds", RetentionPolicy: "7d"}},
		Monitoring: &pgv1.MonitoringSpec{Enabled: ptr.To(true), Service: ptr.To(true)},
	}, pgv1.DeletionPolicyDelete)
	newCluster(t, ns, "keep", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyRetain)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.WaitCluster(t, ns, "keep", pgv1.PhaseReady, 120*time.Second)

	kit.RequestBackup(t, ns, "shop", "rbac-1")
	kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) { c.Spec.PostgreSQLConfig = map[string]string{"work_mem": "16MB"} })
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 60*time.Second)
	kit.UpdateCluster(t, ns, "shop", func(c *pgv1.PostgresCluster) {
		c.Spec.ConnectionPooler.Enabled = ptr.To(false)
		c.Spec.Backup = nil
		c.Spec.Monitoring.Enabled = ptr.To(false)
		c.Spec.Monitoring.Service = ptr.To(false)
	})
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 60*time.Second)
	kit.Gone(t, "ObjectStore", func(ctx context.Context) error {
		_, err := pg.BarmanCloudV1().ObjectStores(ns).Get(ctx, "shop-backup", metav1.GetOptions{})
		return err
	})
	kit.Gone(t, "PodMonitor", func(ctx context.Context) error {
		_, err := pg.MonitoringV1().PodMonitors(ns).Get(ctx, "shop-metrics", metav1.GetOptions{})
		return err
	})
	kit.Gone(t, "metrics Service", func(ctx context.Context) error {
		_, err := kube.CoreV1().Services(ns).Get(ctx, "shop-metrics", metav1.GetOptions{})
		return err
	})

	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"}, pgv1.DatabaseSpec{Name: "catalog", DeletionPolicy: pgv1.DeletionPolicyRetain})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	// A changed deletionPolicy is a new reclaim policy on the database's
	// CNPG Database: applied again. (Its DatabaseRoles stay at reclaim
	// retain while the database lives; the deletion below sets delete.)
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		d, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "app", metav1.GetOptions{})
		if err != nil {
			return err
		}
		d.Spec.Databases[1].DeletionPolicy = pgv1.DeletionPolicyDelete
		_, err = pg.PostgresV1alpha1().PostgresDatabases(ns).Update(t.Context(), d, metav1.UpdateOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	kit.Until(t, 60*time.Second, "catalog's CNPG Database with reclaim delete", func(ctx context.Context) (bool, error) {
		d, err := pg.CNPGV1().Databases(ns).Get(ctx, "app-catalog", metav1.GetOptions{})
		return err == nil && d.Spec.DatabaseReclaimPolicy == "delete", err
	})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 60*time.Second)
	if err := pg.PostgresV1alpha1().PostgresDatabases(ns).Delete(t.Context(), "app", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Gone(t, "PostgresDatabase", func(ctx context.Context) error {
		_, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, "app", metav1.GetOptions{})
		return err
	})
	for _, name := range []string{"shop", "keep"} {
		if err := pg.PostgresV1alpha1().PostgresClusters(ns).Delete(t.Context(), name, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		kit.Gone(t, "PostgresCluster "+name, func(ctx context.Context) error {
			_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Get(ctx, name, metav1.GetOptions{})
			return err
		})
	}
}

// waitLeaseHolder waits until Lease setpoint-system/name names identity.
func waitLeaseHolder(t *testing.T, name, identity string) {
	t.Helper()
	err := wait.PollUntilContextTimeout(t.Context(), 50*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		return leaseHolderOf(ctx, name) == identity, nil
	})
	if err != nil {
		t.Fatalf("Lease %s held by %q, want %q", name, leaseHolderOf(t.Context(), name), identity)
	}
}

func leaseHolderOf(ctx context.Context, name string) string {
	l, err := kube.CoordinationV1().Leases("setpoint-system").Get(ctx, name, metav1.GetOptions{})
	if err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}
