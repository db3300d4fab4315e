package e2e_test

import (
	"context"
	"maps"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

// What setpoint did not create it never modifies or deletes: each test sets
// up the object or data first, applies the setpoint object, and proves
// that nothing changed — after creation and after deletion.

func mustLogin(t *testing.T, ns, cluster, database, user, password string) *pgx.Conn {
	t.Helper()
	conn, err := kit.Login(t, ns, cluster, database, user, password)
	if err != nil {
		t.Fatalf("%s can no longer log in with its own password: %v", user, err)
	}
	return conn
}

func queryString(t *testing.T, conn *pgx.Conn, sql string, args ...any) string {
	t.Helper()
	var s string
	if err := conn.QueryRow(t.Context(), sql, args...).Scan(&s); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return s
}

// condition returns the condition typ of conds, failing when absent.
func condition(t *testing.T, conds []metav1.Condition, typ string) metav1.Condition {
	t.Helper()
	for _, c := range conds {
		if c.Type == typ {
			return c
		}
	}
	t.Fatalf("no condition %s in %+v", typ, conds)
	return metav1.Condition{}
}

func TestNeverSeizesACNPGCluster(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	// A CNPG Cluster another tool made, with its own superuser Secret.
	su := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "legacy-own", Namespace: ns}, Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte("postgres"), "password": []byte("legacy-password")}}
	if _, err := kube.CoreV1().Secrets(ns).Create(t.Context(), su, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	legacy := &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "legacy", Namespace: ns}, Spec: cnpgv1.ClusterSpec{
		Instances: 1, SuperuserSecret: &cnpgv1.LocalObjectReference{Name: "legacy-own"}, EnableSuperuserAccess: ptr.To(true),
		Storage: &cnpgv1.StorageConfiguration{Size: "1Gi"}}}
	if _, err := pg.CNPGV1().Clusters(ns).Create(t.Context(), legacy, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Until(t, 60*time.Second, "legacy cluster healthy", func(ctx context.Context) (bool, error) {
		c, err := pg.CNPGV1().Clusters(ns).Get(ctx, "legacy", metav1.GetOptions{})
		return err == nil && c.Status.Phase == "Cluster in healthy state", err
	})
	mustLogin(t, ns, "legacy", "postgres", "postgres", "legacy-password")
	before, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "legacy", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](3)})
	newCluster(t, ns, "legacy", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	got := kit.WaitCluster(t, ns, "legacy", pgv1.PhaseFailed, 60*time.Second)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionReady, "ClusterConflict", `CNPG Cluster "legacy" exists and was not created by setpoint`)
	expectUntouched := func(when string) {
		t.Helper()
		now, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "legacy", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: the CNPG Cluster is gone: %v", when, err)
		}
		if now.Generation != before.Generation || now.Spec.Instances != 1 || now.Spec.Storage.Size != "1Gi" ||
			now.Spec.SuperuserSecret.Name != "legacy-own" || len(now.OwnerReferences) != 0 ||
			!maps.Equal(now.Labels, before.Labels) || !maps.Equal(now.Annotations, before.Annotations) || now.DeletionTimestamp != nil {
			t.Errorf("%s: CNPG Cluster changed: %+v %+v", when, now.ObjectMeta, now.Spec)
		}
		mustLogin(t, ns, "legacy", "postgres", "postgres", "legacy-password")
	}
	expectUntouched("after creation")

	kit.DeleteCluster(t, ns, "legacy")
	kit.SettleGC(t, ns)
	expectUntouched("after deletion with policy Delete")
}

func TestNeverSeizesPostgresRolesOrDatabases(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	su := connectSuperuser(t, ns, "shop")
	execSQL(t, su, "CREATE ROLE orders_rw LOGIN PASSWORD 'theirs'")
	execSQL(t, su, "CREATE DATABASE orders")
	execSQL(t, su, "CREATE DATABASE legacy")
	for _, db := range []string{"orders", "legacy"} {
		c := dial(t, ns, "shop", db, "shop-superuser", "shop-ca")
		execSQL(t, c, "CREATE TABLE kept (x int); INSERT INTO kept VALUES (42)")
	}
	expectIntact := func(when string) {
		t.Helper()
		mustLogin(t, ns, "shop", "orders", "orders_rw", "theirs")
		for _, db := range []string{"orders", "legacy"} {
			if owner := queryString(t, su, "SELECT pg_get_userbyid(datdba)::text FROM pg_database WHERE datname = $1", db); owner != "postgres" {
				t.Errorf("%s: database %s now owned by %s", when, db, owner)
			}
			c := dial(t, ns, "shop", db, "shop-superuser", "shop-ca")
			if n := queryString(t, c, "SELECT count(*)::text FROM kept WHERE x = 42"); n != "1" {
				t.Errorf("%s: rows of %s lost", when, db)
			}
		}
	}

	// A role that exists: refused, its password untouched.
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	got := kit.WaitDatabase(t, ns, "app", pgv1.PhaseFailed, 60*time.Second)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionRolesReady, "RoleExists", "role orders_rw exists in Postgres and was not created by setpoint")
	// A database that exists (its roles do not): refused before CNPG
	// would change its owner.
	kit.CreateDatabase(t, ns, "app2", "shop", pgv1.DatabaseSpec{Name: "legacy"})
	got = kit.WaitDatabase(t, ns, "app2", pgv1.PhaseFailed, 60*time.Second)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionDatabasesReady, "DatabaseExists", "database legacy exists in Postgres and was not created by setpoint")
	for _, name := range []string{"app-orders", "app2-legacy"} {
		if _, err := pg.CNPGV1().Databases(ns).Get(t.Context(), name, metav1.GetOptions{}); err == nil {
			t.Errorf("CNPG Database %s created for a database setpoint did not create", name)
		}
	}
	expectIntact("after creation")

	// Deleting them (policy Delete) drops only what setpoint created: the
	// legacy_* roles, never the database or the foreign role.
	kit.DeleteDatabase(t, ns, "app")
	kit.DeleteDatabase(t, ns, "app2")
	expectIntact("after deletion with policy Delete")
	for _, r := range []string{"legacy_admin", "legacy_rw", "orders_admin"} {
		if roleExists(t, ns, r) {
			t.Errorf("role %s that setpoint created was not dropped", r)
		}
	}
}

func TestNeverSeizesConfigMaps(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	theirs := map[string]string{"user-key": "user-value"}
	for _, name := range []string{"app-items-config", "other-connection"} {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: theirs}
		if _, err := kube.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	expectIntact := func(when string) {
		t.Helper()
		for _, name := range []string{"app-items-config", "other-connection"} {
			cm, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), name, metav1.GetOptions{})
			if err != nil {
				t.Fatalf("%s: ConfigMap %s: %v", when, name, err)
			}
			if !maps.Equal(cm.Data, theirs) || len(cm.Labels) != 0 || len(cm.OwnerReferences) != 0 {
				t.Errorf("%s: ConfigMap %s changed: %+v %v", when, name, cm.ObjectMeta, cm.Data)
			}
		}
	}

	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "items"})
	got := kit.WaitDatabase(t, ns, "app", pgv1.PhaseFailed, 60*time.Second)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionConfigMapsReady, "ConfigMapConflict", `ConfigMap "app-items-config" exists and was not created by setpoint`)
	newCluster(t, ns, "other", "e2e-"+ns, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	pc := kit.WaitCluster(t, ns, "other", pgv1.PhaseFailed, 120*time.Second)
	testkit.ExpectReason(t, pc.Status.Conditions, pgv1.ConditionReady, "ConfigMapConflict", `ConfigMap "other-connection" exists and was not created by setpoint`)
	expectIntact("after creation")

	kit.DeleteDatabase(t, ns, "app")
	kit.DeleteCluster(t, ns, "other")
	kit.SettleGC(t, ns)
	expectIntact("after deletion")
}

func TestNeverSeizesAnObjectStore(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	store := &barmanv1.ObjectStore{ObjectMeta: metav1.ObjectMeta{Name: "bk-backup", Namespace: ns}, Spec: barmanv1.ObjectStoreSpec{
		RetentionPolicy: "90d", Configuration: barmanv1.BarmanObjectStoreConfiguration{
			DestinationPath: "s3://someone-elses-bucket/", S3Credentials: &barmanv1.S3Credentials{
				AccessKeyID:     &barmanv1.SecretKeySelector{Name: "theirs", Key: "id"},
				SecretAccessKey: &barmanv1.SecretKeySelector{Name: "theirs", Key: "key"}}}}}
	if _, err := pg.BarmanCloudV1().ObjectStores(ns).Create(t.Context(), store, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before, err := pg.BarmanCloudV1().ObjectStores(ns).Get(t.Context(), "bk-backup", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Backup: &pgv1.BackupSpec{ObjectStore: &pgv1.ObjectStoreSpec{
		DestinationPath: "s3://ours/", CredentialsSecretName: "creds", RetentionPolicy: "7d"}}})
	newCluster(t, ns, "bk", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	got := kit.WaitCluster(t, ns, "bk", pgv1.PhaseFailed, 60*time.Second)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionReady, "ObjectStoreConflict", `ObjectStore "bk-backup" exists and was not created by setpoint`)
	expectUntouched := func(when string) {
		t.Helper()
		now, err := pg.BarmanCloudV1().ObjectStores(ns).Get(t.Context(), "bk-backup", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("%s: ObjectStore gone: %v", when, err)
		}
		if now.Generation != before.Generation || now.Spec.Configuration.DestinationPath != "s3://someone-elses-bucket/" ||
			now.Spec.RetentionPolicy != "90d" || len(now.OwnerReferences) != 0 || len(now.Labels) != 0 {
			t.Errorf("%s: ObjectStore changed: %+v %+v", when, now.ObjectMeta, now.Spec)
		}
	}
	expectUntouched("after creation")
	kit.DeleteCluster(t, ns, "bk")
	kit.SettleGC(t, ns)
	expectUntouched("after deletion")
}

// Retained data goes back only to the object it was kept for: another
// PostgresDatabase claiming the same database name is refused, and the
// first one's password and rows survive both its claim and its deletion.
func TestRetainedDataIsNotHandedToAnotherApplication(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "first", "shop", pgv1.DatabaseSpec{Name: "orders", DeletionPolicy: pgv1.DeletionPolicyRetain})
	kit.WaitDatabase(t, ns, "first", pgv1.PhaseReady, 120*time.Second)
	admin := connectAs(t, ns, "first-orders-config", "first-orders-admin")
	execSQL(t, admin, "CREATE TABLE secrets (x text); INSERT INTO secrets VALUES ('first app data')")
	sec, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "first-orders-admin", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	password := string(sec.Data["password"])
	kit.DeleteDatabase(t, ns, "first")

	kit.CreateDatabase(t, ns, "second", "shop", pgv1.DatabaseSpec{Name: "orders"})
	got := kit.WaitDatabase(t, ns, "second", pgv1.PhaseFailed, 60*time.Second)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionRolesReady, "RoleExists", "created by setpoint for PostgresDatabase "+ns+"/first")
	expectIntact := func(when string) {
		t.Helper()
		c := mustLogin(t, ns, "shop", "orders", "orders_admin", password)
		if v := queryString(t, c, "SELECT x FROM secrets"); v != "first app data" {
			t.Errorf("%s: rows changed: %q", when, v)
		}
	}
	expectIntact("after the other claim")
	kit.DeleteDatabase(t, ns, "second")
	expectIntact("after the other claimant's deletion")

	// A PostgresDatabase of the same name on another cluster does not take
	// the retained objects either.
	newCluster(t, ns, "elsewhere", "e2e-"+ns, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "elsewhere", pgv1.PhaseReady, 120*time.Second)
	d := &pgv1.PostgresDatabase{ObjectMeta: metav1.ObjectMeta{Name: "first", Namespace: ns}, Spec: pgv1.PostgresDatabaseSpec{
		ClusterRef: pgv1.ClusterReference{Name: "elsewhere"}, Databases: []pgv1.DatabaseSpec{{Name: "orders"}}}}
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got = kit.WaitDatabase(t, ns, "first", pgv1.PhaseFailed, 60*time.Second)
	testkit.ExpectReason(t, got.Status.Conditions, pgv1.ConditionSecretsReady, "SecretConflict", `retained for PostgresDatabase/first on cluster "shop"`)
	again, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "first-orders-admin", metav1.GetOptions{})
	if err != nil || string(again.Data["password"]) != password || len(again.OwnerReferences) != 0 {
		t.Fatalf("retained Secret changed: %v %+v", err, again.ObjectMeta)
	}
	kit.DeleteDatabase(t, ns, "first")
	expectIntact("after the same-named object on another cluster")
}

// A PostgresCluster deleted with Retain under live databases: deleting a
// database afterwards (policy Delete) drops nothing — the retained CNPG
// Cluster still serves it and manages its roles with its Secrets — and a
// new PostgresCluster and PostgresDatabase of the same names take it all
// back, passwords and rows included.
func TestRetainedClusterKeepsItsDatabases(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap, "--resync-period", "2s")
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{Instances: ptr.To[int32](1)})
	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyRetain)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	execSQL(t, connectAs(t, ns, "app-orders-config", "app-orders-admin"), "CREATE TABLE t (x int); INSERT INTO t VALUES (7)")
	rw, err := kube.CoreV1().Secrets(ns).Get(t.Context(), "app-orders-rw", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}

	kit.DeleteCluster(t, ns, "shop")
	kit.DeleteDatabase(t, ns, "app")
	kit.SettleGC(t, ns)
	if !databaseExistsAs(t, ns) {
		t.Fatal("database orders dropped although its cluster was retained")
	}
	for _, s := range []string{"app-orders-admin", "app-orders-rw"} {
		if _, err := kube.CoreV1().Secrets(ns).Get(t.Context(), s, metav1.GetOptions{}); err != nil {
			t.Errorf("Secret %s the retained cluster's roles use is gone: %v", s, err)
		}
	}
	mustLogin(t, ns, "shop", "orders", "orders_rw", string(rw.Data["password"]))

	newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	c := connectAs(t, ns, "app-orders-config", "app-orders-rw")
	if n := queryString(t, c, "SELECT count(*)::text FROM t WHERE x = 7"); n != "1" {
		t.Errorf("rows lost through Retain and adoption")
	}
}

// databaseExistsAs checks for database orders as the retained superuser
// (the connection ConfigMap went with the PostgresCluster).
func databaseExistsAs(t *testing.T, ns string) bool {
	t.Helper()
	c := dial(t, ns, "shop", "postgres", "shop-superuser", "shop-ca")
	return queryString(t, c, "SELECT count(*)::text FROM pg_database WHERE datname = 'orders'") == "1"
}

// A class that live clusters use is kept until they are gone.
func TestClassInUseIsKept(t *testing.T) {
	ns := kit.Namespace(t)
	readyCluster(t, ns)
	class := "e2e-" + ns
	if err := pg.PostgresV1alpha1().PostgresClusterClasses().Delete(t.Context(), class, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.Until(t, 30*time.Second, "ClassInUse event", func(ctx context.Context) (bool, error) {
		evs, err := kube.CoreV1().Events("").List(ctx, metav1.ListOptions{FieldSelector: "reason=ClassInUse,involvedObject.name=" + class})
		return err == nil && len(evs.Items) > 0 && strings.Contains(evs.Items[0].Message, ns+"/shop"), err
	})
	c, err := pg.PostgresV1alpha1().PostgresClusterClasses().Get(t.Context(), class, metav1.GetOptions{})
	if err != nil || c.DeletionTimestamp == nil {
		t.Fatalf("class in use: %v %+v", err, c)
	}
	// The cluster keeps running on its class, Ready (resync every 2 s).
	kit.UpdateCluster(t, ns, "shop", func(pc *pgv1.PostgresCluster) { pc.Spec.Instances = ptr.To[int32](1) })
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 60*time.Second)

	kit.DeleteCluster(t, ns, "shop")
	kit.Gone(t, "PostgresClusterClass", func(ctx context.Context) error {
		_, err := pg.PostgresV1alpha1().PostgresClusterClasses().Get(ctx, class, metav1.GetOptions{})
		return err
	})
}

// Role intent comes from the spec: a status that asks for another role
// (here a role someone made by hand) makes setpoint manage nothing of it,
// even while that status persists across the cluster's passes.
func TestStatusCannotMakeSetpointManageARole(t *testing.T) {
	ns := kit.Namespace(t)
	op := readyCluster(t, ns) // resync every 2 s
	execSQL(t, connectSuperuser(t, ns, "shop"), "CREATE ROLE victim LOGIN PASSWORD 'victim-password'")
	// A spec database whose external Secret is missing: the database
	// controller stops at SecretsReady and keeps the entry's roles as they
	// are, so what we write below stays in the status.
	kit.CreateDatabase(t, ns, "evil", "shop", pgv1.DatabaseSpec{Name: "harmless",
		PasswordConfig: &pgv1.DatabasePasswordConfig{AdminSecretRef: &pgv1.LocalObjectReference{Name: "missing"}}})
	kit.WaitDatabase(t, ns, "evil", pgv1.PhaseFailed, 60*time.Second)
	evil := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "evil-password", Namespace: ns}, Type: corev1.SecretTypeBasicAuth,
		Data: map[string][]byte{"username": []byte("victim"), "password": []byte("taken-over")}}
	if _, err := kube.CoreV1().Secrets(ns).Create(t.Context(), evil, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	db, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "evil", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range db.Status.Databases {
		db.Status.Databases[i].Roles = []pgv1.RoleStatus{
			{Name: "victim", Ensure: pgv1.RoleEnsurePresent, PasswordSecretRef: &pgv1.LocalObjectReference{Name: "evil-password"}},
			{Name: "pg_monitor", Ensure: pgv1.RoleEnsureAbsent},
		}
	}
	if _, err := pg.PostgresV1alpha1().PostgresDatabases(ns).UpdateStatus(t.Context(), db, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Let the cluster pass several times with that status in place.
	passes := op.metric(t, "setpoint_reconcile_total", "name", "postgrescluster")
	kit.Until(t, 60*time.Second, "three more cluster passes", func(ctx context.Context) (bool, error) {
		return op.metric(t, "setpoint_reconcile_total", "name", "postgrescluster") >= passes+3, nil
	})
	still, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(t.Context(), "evil", metav1.GetOptions{})
	if err != nil || len(still.Status.Databases) == 0 || len(still.Status.Databases[0].Roles) == 0 || still.Status.Databases[0].Roles[0].Name != "victim" {
		t.Fatalf("the injected status did not persist, the test proves nothing: %v %+v", err, still.Status.Databases)
	}
	cl, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if m := cl.Spec.Managed; m != nil {
		for _, r := range m.Roles {
			if r.Name == "victim" || r.Name == "pg_monitor" {
				t.Errorf("a status made setpoint manage role %s: %+v", r.Name, r)
			}
		}
	}
	mustLogin(t, ns, "shop", "postgres", "victim", "victim-password")
}
