package e2e_test

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	barmanv1 "github.com/setpoint-dev/setpoint/pkg/apis/barmancloud/v1"
	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	monitoringv1 "github.com/setpoint-dev/setpoint/pkg/apis/monitoring/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/credentials"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// Disturbance rejection: every child setpoint owns, deleted or edited by
// hand, comes back with setpoint's content and a controller reference to
// the same owner — woken by the informer event, not by a resync (the
// operator resyncs hourly: repairTimeout). A deleted generated Secret
// comes back with a new password that Postgres accepts, and says so.
func TestChildrenComeBack(t *testing.T) {
	ns := kit.Namespace(t)
	startOperator(t, "disturb-op", "--leader-elect=false", "--namespace", ns, "--postgres-host-map", hostMap)
	class := "e2e-" + ns
	newClass(t, class, pgv1.ClusterSettings{
		Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15),
		ConnectionPooler: &pgv1.ConnectionPoolerSpec{Enabled: ptr.To(true), Instances: ptr.To[int32](1), PoolMode: pgv1.PoolModeTransaction},
		Backup: &pgv1.BackupSpec{Schedule: "0 2 * * *", ObjectStore: &pgv1.ObjectStoreSpec{
			DestinationPath: "s3://e2e/" + ns, CredentialsSecretName: "backup-creds"}},
		Monitoring:      &pgv1.MonitoringSpec{Enabled: ptr.To(true)},
		SuperuserAccess: ptr.To(true), // the superuser Secret is one of the children disturbed
	})
	pc := newCluster(t, ns, "shop", class, pgv1.ClusterSettings{}, pgv1.DeletionPolicyDelete)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 120*time.Second)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders", DeletionPolicy: pgv1.DeletionPolicyRetain})
	db := kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	execSQL(t, connectAs(t, ns, "app-orders-config", "app-orders-admin"),
		"CREATE TABLE items (id int PRIMARY KEY); INSERT INTO items SELECT generate_series(1, 100); GRANT SELECT ON items TO orders_rw")

	t.Run("Pooler", func(t *testing.T) { poolerComesBack(t, ns, pc.UID) })
	t.Run("ScheduledBackup", func(t *testing.T) { scheduledBackupComesBack(t, ns, pc.UID) })
	t.Run("ObjectStore", func(t *testing.T) { objectStoreComesBack(t, ns, pc.UID) })
	t.Run("PodMonitor", func(t *testing.T) { podMonitorComesBack(t, ns, pc.UID) })
	t.Run("connection ConfigMap", func(t *testing.T) {
		configMapComesBack(t, ns, "shop-connection", pc.UID, ownership.ClusterLabel, "shop")
	})
	t.Run("database ConfigMap", func(t *testing.T) {
		configMapComesBack(t, ns, "app-orders-config", db.UID, ownership.DatabaseLabel, "app")
	})
	t.Run("CNPG Database", func(t *testing.T) { cnpgDatabaseComesBack(t, ns, db.UID) })
	t.Run("CNPG Cluster field", func(t *testing.T) {
		client := pg.CNPGV1().Clusters(ns)
		editedBack(t, "CNPG Cluster instances",
			func(ctx context.Context) (*cnpgv1.Cluster, error) {
				return client.Get(ctx, "shop", metav1.GetOptions{})
			},
			func(ctx context.Context) (*cnpgv1.Cluster, error) {
				return client.Patch(ctx, "shop", types.MergePatchType, []byte(`{"spec":{"instances":2}}`), editor)
			},
			func(cl *cnpgv1.Cluster) bool { return cl.Spec.Instances == 1 })
	})
	t.Run("DatabaseRole", func(t *testing.T) { databaseRoleComesBack(t, ns, db.UID) })
	t.Run("generated Secret", func(t *testing.T) { generatedSecretComesBack(t, ns, db.UID) })
	t.Run("superuser Secret", func(t *testing.T) { superuserSecretComesBack(t, ns, pc.UID) })
	t.Run("monitor DatabaseRole and Secret", func(t *testing.T) { monitorComesBack(t, ns, pc.UID) })

	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 60*time.Second)
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 60*time.Second)
	var n int
	if err := connectAs(t, ns, "app-orders-config", "app-orders-rw").QueryRow(t.Context(), "SELECT count(*) FROM items").Scan(&n); err != nil || n != 100 {
		t.Fatalf("after the disturbances: %d rows (%v), want the 100 written before", n, err)
	}
}

func poolerComesBack(t *testing.T, ns string, owner types.UID) {
	client := pg.CNPGV1().Poolers(ns)
	get := func(ctx context.Context) (*cnpgv1.Pooler, error) {
		return client.Get(ctx, "shop-pooler-rw", metav1.GetOptions{})
	}
	ok := func(p *cnpgv1.Pooler) bool {
		s := p.Spec
		return s.Cluster.Name == "shop" && s.Type == cnpgv1.PoolerTypeRW && ptr.Deref(s.Instances, 0) == 1 &&
			s.PgBouncer != nil && s.PgBouncer.PoolMode == "transaction"
	}
	comesBack(t, "Pooler shop-pooler-rw", owner, get,
		func(ctx context.Context, o metav1.DeleteOptions) error {
			return client.Delete(ctx, "shop-pooler-rw", o)
		}, ok)
	editedBack(t, "Pooler poolMode", get, func(ctx context.Context) (*cnpgv1.Pooler, error) {
		return client.Patch(ctx, "shop-pooler-rw", types.MergePatchType, []byte(`{"spec":{"pgbouncer":{"poolMode":"session"}}}`), editor)
	}, ok)
}

func scheduledBackupComesBack(t *testing.T, ns string, owner types.UID) {
	client := pg.CNPGV1().ScheduledBackups(ns)
	get := func(ctx context.Context) (*cnpgv1.ScheduledBackup, error) {
		return client.Get(ctx, "shop-backup", metav1.GetOptions{})
	}
	ok := func(b *cnpgv1.ScheduledBackup) bool {
		return b.Spec.Schedule == "0 0 2 * * *" && b.Spec.Method == cnpgv1.BackupMethodPlugin && b.Spec.Cluster.Name == "shop"
	}
	comesBack(t, "ScheduledBackup shop-backup", owner, get,
		func(ctx context.Context, o metav1.DeleteOptions) error { return client.Delete(ctx, "shop-backup", o) }, ok)
	editedBack(t, "ScheduledBackup schedule", get, func(ctx context.Context) (*cnpgv1.ScheduledBackup, error) {
		return client.Patch(ctx, "shop-backup", types.MergePatchType, []byte(`{"spec":{"schedule":"0 0 3 * * *"}}`), editor)
	}, ok)
}

func objectStoreComesBack(t *testing.T, ns string, owner types.UID) {
	client := pg.BarmanCloudV1().ObjectStores(ns)
	get := func(ctx context.Context) (*barmanv1.ObjectStore, error) {
		return client.Get(ctx, "shop-backup", metav1.GetOptions{})
	}
	first, err := get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	root := first.Spec.Configuration.DestinationPath
	if !strings.HasPrefix(root, "s3://e2e/"+ns) {
		t.Fatalf("ObjectStore destinationPath %q is not the class's", root)
	}
	ok := func(o *barmanv1.ObjectStore) bool {
		c := o.Spec.Configuration
		return c.DestinationPath == root && c.S3Credentials != nil && c.S3Credentials.AccessKeyID != nil &&
			c.S3Credentials.AccessKeyID.Name == "backup-creds"
	}
	comesBack(t, "ObjectStore shop-backup", owner, get,
		func(ctx context.Context, o metav1.DeleteOptions) error { return client.Delete(ctx, "shop-backup", o) }, ok)
	editedBack(t, "ObjectStore destinationPath", get, func(ctx context.Context) (*barmanv1.ObjectStore, error) {
		return client.Patch(ctx, "shop-backup", types.MergePatchType, []byte(`{"spec":{"configuration":{"destinationPath":"s3://elsewhere"}}}`), editor)
	}, ok)
}

func podMonitorComesBack(t *testing.T, ns string, owner types.UID) {
	client := pg.MonitoringV1().PodMonitors(ns)
	get := func(ctx context.Context) (*monitoringv1.PodMonitor, error) {
		return client.Get(ctx, "shop-metrics", metav1.GetOptions{})
	}
	ok := func(pm *monitoringv1.PodMonitor) bool {
		sel := pm.Spec.Selector.MatchLabels
		eps := pm.Spec.PodMetricsEndpoints
		return len(sel) == 2 && sel["cnpg.io/cluster"] == "shop" && sel["cnpg.io/podRole"] == "instance" &&
			len(eps) == 1 && ptr.Deref(eps[0].Port, "") == "metrics"
	}
	comesBack(t, "PodMonitor shop-metrics", owner, get,
		func(ctx context.Context, o metav1.DeleteOptions) error { return client.Delete(ctx, "shop-metrics", o) }, ok)
	editedBack(t, "PodMonitor selector", get, func(ctx context.Context) (*monitoringv1.PodMonitor, error) {
		return client.Patch(ctx, "shop-metrics", types.MergePatchType, []byte(`{"spec":{"selector":{"matchLabels":{"cnpg.io/cluster":"other"}}}}`), editor)
	}, ok)
}

// configMapComesBack deletes, edits and unlabels a ConfigMap (our cache
// holds only those labelled managed-by setpoint: without that label it is
// gone to the cache, which sees a deletion).
func configMapComesBack(t *testing.T, ns, name string, owner types.UID, label, value string) {
	client := kube.CoreV1().ConfigMaps(ns)
	get := func(ctx context.Context) (*corev1.ConfigMap, error) {
		return client.Get(ctx, name, metav1.GetOptions{})
	}
	first, err := get(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	data := first.Data
	ok := func(cm *corev1.ConfigMap) bool {
		return maps.Equal(cm.Data, data) && cm.Labels[label] == value && cm.Labels[ownership.ManagedByLabel] == ownership.ManagedByValue
	}
	comesBack(t, "ConfigMap "+name, owner, get,
		func(ctx context.Context, o metav1.DeleteOptions) error { return client.Delete(ctx, name, o) }, ok)
	editedBack(t, "ConfigMap "+name+" data", get, func(ctx context.Context) (*corev1.ConfigMap, error) {
		return client.Patch(ctx, name, types.MergePatchType, []byte(`{"data":{"rw-host":"evil.example.com"}}`), editor)
	}, ok)
	for _, l := range []string{label, ownership.ManagedByLabel} {
		editedBack(t, "ConfigMap "+name+" label "+l, get, func(ctx context.Context) (*corev1.ConfigMap, error) {
			return client.Patch(ctx, name, types.MergePatchType, fmt.Appendf(nil, `{"metadata":{"labels":{%q:null}}}`, l), editor)
		}, ok)
	}
}

// cnpgDatabaseComesBack: with reclaim policy retain (deletionPolicy
// Retain) CloudNativePG keeps the database when its Database object goes,
// so the rows are there when setpoint applies it again.
func cnpgDatabaseComesBack(t *testing.T, ns string, owner types.UID) {
	client := pg.CNPGV1().Databases(ns)
	get := func(ctx context.Context) (*cnpgv1.Database, error) {
		return client.Get(ctx, "app-orders", metav1.GetOptions{})
	}
	ok := func(d *cnpgv1.Database) bool {
		s := d.Spec
		return s.Name == "orders" && s.Owner == "orders_admin" && s.Cluster.Name == "shop" && s.DatabaseReclaimPolicy == cnpgv1.DatabaseReclaimRetain
	}
	comesBack(t, "CNPG Database app-orders", owner, get,
		func(ctx context.Context, o metav1.DeleteOptions) error { return client.Delete(ctx, "app-orders", o) }, ok)
	editedBack(t, "CNPG Database reclaim policy", get, func(ctx context.Context) (*cnpgv1.Database, error) {
		return client.Patch(ctx, "app-orders", types.MergePatchType, []byte(`{"spec":{"databaseReclaimPolicy":"delete"}}`), editor)
	}, ok)
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 60*time.Second)
	var n int
	if err := connectAs(t, ns, "app-orders-config", "app-orders-admin").QueryRow(t.Context(), "SELECT count(*) FROM items").Scan(&n); err != nil || n != 100 {
		t.Fatalf("rows after the CNPG Database came back: %d (%v), want 100", n, err)
	}
}

// databaseRoleComesBack deletes and edits the DatabaseRole of orders_rw.
// The database is Retain, so CNPG keeps the role when its object goes
// (reclaim retain); setpoint applies the object again and the role keeps
// its password.
func databaseRoleComesBack(t *testing.T, ns string, owner types.UID) {
	client := pg.CNPGV1().DatabaseRoles(ns)
	const name = "shop.orders-rw"
	get := func(ctx context.Context) (*cnpgv1.DatabaseRole, error) {
		return client.Get(ctx, name, metav1.GetOptions{})
	}
	ok := func(r *cnpgv1.DatabaseRole) bool {
		s := r.Spec
		return s.Name == "orders_rw" && s.Cluster.Name == "shop" && s.Login && s.PasswordSecret != nil &&
			s.PasswordSecret.Name == "app-orders-rw" && strings.Contains(s.Comment, "managed by setpoint") &&
			s.DatabaseRoleReclaimPolicy == cnpgv1.DatabaseRoleReclaimRetain
	}
	comesBack(t, "DatabaseRole "+name, owner, get,
		func(ctx context.Context, o metav1.DeleteOptions) error { return client.Delete(ctx, name, o) }, ok)
	editedBack(t, "DatabaseRole reclaim policy", get, func(ctx context.Context) (*cnpgv1.DatabaseRole, error) {
		return client.Patch(ctx, name, types.MergePatchType, []byte(`{"spec":{"databaseRoleReclaimPolicy":"delete"}}`), editor)
	}, ok)
	password := kit.Password(t, ns, "app-orders-rw")
	kit.Until(t, repairTimeout, "orders_rw logs in", func(context.Context) (bool, error) {
		return accepted(t, ns, "orders", "orders_rw", password), nil
	})
}

// generatedSecretComesBack: the password of a deleted generated Secret is
// gone (Postgres keeps a verifier); it comes back with a new one that the
// role accepts — the old one refused — with a Warning Event and a note in
// SecretsReady.
func generatedSecretComesBack(t *testing.T, ns string, owner types.UID) {
	client := kube.CoreV1().Secrets(ns)
	old := kit.Password(t, ns, "app-orders-rw")
	s := comesBack(t, "Secret app-orders-rw", owner,
		func(ctx context.Context) (*corev1.Secret, error) {
			return client.Get(ctx, "app-orders-rw", metav1.GetOptions{})
		},
		func(ctx context.Context, o metav1.DeleteOptions) error { return client.Delete(ctx, "app-orders-rw", o) },
		func(s *corev1.Secret) bool {
			return s.Type == corev1.SecretTypeBasicAuth && string(s.Data["username"]) == "orders_rw" &&
				len(s.Data["password"]) > 0 && s.Labels[ownership.ReloadLabel] == "true"
		})
	fresh := string(s.Data["password"])
	if fresh == old {
		t.Fatal("the re-created Secret has the deleted one's password: setpoint does not keep passwords")
	}
	if s.Annotations[credentials.RecreatedAtAnnotation] == "" {
		t.Errorf("re-created Secret not marked: %v", s.Annotations)
	}
	kit.PasswordSwitched(t, ns, "shop", "orders", "orders_rw", old, fresh)
	expectEvent(t, ns, "app", corev1.EventTypeWarning, "SecretRecreated")
	kit.Until(t, repairTimeout, "SecretsReady names the re-created Secret", func(ctx context.Context) (bool, error) {
		d, err := pg.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, "app", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		c := meta.FindStatusCondition(d.Status.Conditions, pgv1.ConditionSecretsReady)
		return c != nil && c.Status == metav1.ConditionTrue && strings.Contains(c.Message, "app-orders-rw (at "), nil
	})
}

// superuserSecretComesBack: the same for the superuser Secret, which
// setpoint itself goes on using.
func superuserSecretComesBack(t *testing.T, ns string, owner types.UID) {
	client := kube.CoreV1().Secrets(ns)
	old := kit.Password(t, ns, "shop-superuser")
	s := comesBack(t, "Secret shop-superuser", owner,
		func(ctx context.Context) (*corev1.Secret, error) {
			return client.Get(ctx, "shop-superuser", metav1.GetOptions{})
		},
		func(ctx context.Context, o metav1.DeleteOptions) error {
			return client.Delete(ctx, "shop-superuser", o)
		},
		func(s *corev1.Secret) bool {
			return string(s.Data["username"]) == "postgres" && len(s.Data["password"]) > 0
		})
	fresh := string(s.Data["password"])
	if fresh == old || s.Annotations[credentials.RecreatedAtAnnotation] == "" {
		t.Fatalf("re-created superuser Secret: same password %v, annotations %v", fresh == old, s.Annotations)
	}
	kit.Until(t, repairTimeout, "postgres logs in with the new password and not the old one", func(context.Context) (bool, error) {
		_, errNew := kit.Login(t, ns, "shop", "postgres", "postgres", fresh)
		_, errOld := kit.Login(t, ns, "shop", "postgres", "postgres", old)
		return errNew == nil && errOld != nil, nil
	})
	expectEvent(t, ns, "shop", corev1.EventTypeWarning, "SecretRecreated")
	c := waitCondition(t, ns, "shop", pgv1.ConditionSecretReady, metav1.ConditionTrue, repairTimeout)
	if msg := meta.FindStatusCondition(c.Status.Conditions, pgv1.ConditionSecretReady).Message; !strings.Contains(msg, "shop-superuser (at ") {
		t.Errorf("SecretReady message %q does not say the Secret was re-created", msg)
	}
}

// monitorComesBack: the monitor role's DatabaseRole and Secret, which
// setpoint's own checks log in with. The DatabaseRole comes back as
// setpoint writes it; a deleted Secret comes back with a new password
// that CNPG sets on the role. No user holds that password, so there is
// nobody to warn: setpoint's own logins simply use the new one.
func monitorComesBack(t *testing.T, ns string, owner types.UID) {
	roles := pg.CNPGV1().DatabaseRoles(ns)
	object := naming.MonitorRoleObject("shop")
	comesBack(t, "DatabaseRole "+object, owner,
		func(ctx context.Context) (*cnpgv1.DatabaseRole, error) {
			return roles.Get(ctx, object, metav1.GetOptions{})
		},
		func(ctx context.Context, o metav1.DeleteOptions) error { return roles.Delete(ctx, object, o) },
		func(r *cnpgv1.DatabaseRole) bool {
			s := r.Spec
			return s.Name == naming.MonitorRole && s.Cluster.Name == "shop" && s.Login &&
				slices.Equal(s.InRoles, []string{"pg_monitor"}) && s.PasswordSecret != nil &&
				s.PasswordSecret.Name == naming.MonitorSecret("shop") &&
				s.DatabaseRoleReclaimPolicy == cnpgv1.DatabaseRoleReclaimDelete
		})

	secrets := kube.CoreV1().Secrets(ns)
	name := naming.MonitorSecret("shop")
	old := kit.Password(t, ns, name)
	s := comesBack(t, "Secret "+name, owner,
		func(ctx context.Context) (*corev1.Secret, error) { return secrets.Get(ctx, name, metav1.GetOptions{}) },
		func(ctx context.Context, o metav1.DeleteOptions) error { return secrets.Delete(ctx, name, o) },
		func(s *corev1.Secret) bool {
			return s.Type == corev1.SecretTypeBasicAuth && string(s.Data["username"]) == naming.MonitorRole &&
				len(s.Data["password"]) > 0
		})
	fresh := string(s.Data["password"])
	if fresh == old {
		t.Fatal("the re-created monitor Secret has the deleted one's password")
	}
	kit.Until(t, repairTimeout, naming.MonitorRole+" logs in with the new password and not the old one", func(context.Context) (bool, error) {
		_, errNew := kit.Login(t, ns, "shop", "postgres", naming.MonitorRole, fresh)
		_, errOld := kit.Login(t, ns, "shop", "postgres", naming.MonitorRole, old)
		return errNew == nil && errOld != nil, nil
	})
	waitCondition(t, ns, "shop", pgv1.ConditionMonitorReady, metav1.ConditionTrue, repairTimeout)
}
