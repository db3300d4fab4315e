package parity

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// The objects of the scenarios, in the site's namespace.
const (
	clusterName  = "shop"
	databaseName = "app"
	dbName       = "orders"
)

// step is one scenario; each builds on the ones before it.
type step struct {
	name string
	run  func(t *testing.T, r *run)
}

// steps is the scenario list both tiers run.
var steps = []step{
	{"cluster with poolers and backups", clusterStep},
	{"database with three roles", databaseStep},
	{"CNPG refuses a second DatabaseRole for a role", roleConflictStep},
	{"CNPG refuses a Database whose owner is missing", databaseRefusedStep},
	{"on-demand backup", backupStep},
	{"a database asks for an extension Postgres lacks", missingExtensionStep},
	{"restore from the backup", restoreStep},
	{"the object store's credentials are wrong, then fixed", credentialsStep},
	{"CNPG upgrades a cluster's major in place", majorUpgradeStep},
}

// clusterStep: a class with both poolers and an object store, a
// PostgresCluster of it, Ready.
func clusterStep(t *testing.T, r *run) {
	ns := r.site.Namespace
	class := r.className()
	settings := pgv1.ClusterSettings{
		Instances:        ptr.To[int32](1),
		PostgresVersion:  ptr.To[int32](15),
		ConnectionPooler: &pgv1.ConnectionPoolerSpec{Enabled: ptr.To(true), Instances: ptr.To[int32](1)},
		Backup:           &pgv1.BackupSpec{ObjectStore: &pgv1.ObjectStoreSpec{CredentialsSecretName: "backup-creds"}},
	}
	// As a user makes it; neither site's store checks the keys.
	creds := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "backup-creds", Namespace: ns},
		StringData: map[string]string{"ACCESS_KEY_ID": "parity", "ACCESS_SECRET_KEY": "parity-secret"},
	}
	if _, err := r.site.Kube.CoreV1().Secrets(ns).Create(t.Context(), creds, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create the backup credentials Secret: %v", err)
	}
	r.site.Fit(&settings)
	c := &pgv1.PostgresClusterClass{ObjectMeta: metav1.ObjectMeta{Name: class}, Spec: pgv1.PostgresClusterClassSpec{ClusterSettings: settings}}
	if _, err := r.site.PG.PostgresV1alpha1().PostgresClusterClasses().Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create class: %v", err)
	}
	t.Cleanup(func() {
		_ = r.site.PG.PostgresV1alpha1().PostgresClusterClasses().Delete(context.WithoutCancel(t.Context()), class, metav1.DeleteOptions{})
	})
	pc := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: clusterName, Namespace: ns},
		Spec:       pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete},
	}
	if _, err := r.site.PG.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), pc, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PostgresCluster: %v", err)
	}
	r.waitFor(t, "PostgresCluster Ready", r.clusterPhase(clusterName, pgv1.PhaseReady))
	r.observe(t, "cluster/PostgresCluster", r.readPostgresCluster(clusterName))
	r.observe(t, "cluster/Cluster", r.readCluster(clusterName))
	for _, name := range naming.Poolers(clusterName) {
		r.observe(t, "cluster/Pooler "+name, func(ctx context.Context) (Value, error) {
			p, err := r.site.PG.CNPGV1().Poolers(ns).Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return nil, err
			}
			return Normalize(p.Status, p.Generation)
		})
	}
}

// databaseStep: a PostgresDatabase with a read-only role, Ready; its CNPG
// Database and DatabaseRoles as CNPG reports them; each role does what
// its grants allow.
func databaseStep(t *testing.T, r *run) {
	ns := r.site.Namespace
	d := &pgv1.PostgresDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: databaseName, Namespace: ns},
		Spec: pgv1.PostgresDatabaseSpec{
			ClusterRef: pgv1.ClusterReference{Name: clusterName},
			Databases:  []pgv1.DatabaseSpec{{Name: dbName, ReadOnlyRole: true}},
		},
	}
	if _, err := r.site.PG.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PostgresDatabase: %v", err)
	}
	r.waitFor(t, "PostgresDatabase Ready", func(ctx context.Context) (bool, string, error) {
		d, err := r.site.PG.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, databaseName, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return d.Status.Phase == pgv1.PhaseReady && d.Status.ObservedGeneration == d.Generation, fmt.Sprintf("%s %v", d.Status.Phase, d.Status.Conditions), nil
	})
	r.observe(t, "database/PostgresDatabase", func(ctx context.Context) (Value, error) {
		d, err := r.site.PG.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, databaseName, metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return Conclusion(d.Status.Phase, d.Generation, d.Status.ObservedGeneration, d.Status.Conditions), nil
	})
	r.observe(t, "database/Databases", r.readDatabases)
	r.observe(t, "database/DatabaseRoles", r.readDatabaseRoles)
	r.observe(t, "database/what each role may do", r.useRoles)
}

// missingExtensionStep: a PostgresDatabase whose extension Postgres does
// not have: CNPG reports its failure on the CNPG Database, and setpoint
// shows it, Provisioning, without end.
func missingExtensionStep(t *testing.T, r *run) {
	ns := r.site.Namespace
	d := &pgv1.PostgresDatabase{
		ObjectMeta: metav1.ObjectMeta{Name: "lacking", Namespace: ns},
		Spec: pgv1.PostgresDatabaseSpec{
			ClusterRef: pgv1.ClusterReference{Name: clusterName},
			Databases:  []pgv1.DatabaseSpec{{Name: "lacking", Extensions: []string{"parity_no_such_extension"}}},
		},
	}
	if _, err := r.site.PG.PostgresV1alpha1().PostgresDatabases(ns).Create(t.Context(), d, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create PostgresDatabase: %v", err)
	}
	cnpgName := naming.Database("lacking", "lacking").CNPG
	r.waitFor(t, "CNPG answers and setpoint reports it", func(ctx context.Context) (bool, string, error) {
		c, err := r.cnpgStatus(ctx, kindDatabase, cnpgName)
		if err != nil {
			return false, "", err
		}
		d, err := r.site.PG.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, "lacking", metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		cond := meta.FindStatusCondition(d.Status.Conditions, pgv1.ConditionDatabasesReady)
		return c.applied != nil && cond != nil && cond.ObservedGeneration == d.Generation,
			fmt.Sprintf("CNPG %+v; setpoint %v", c.status, d.Status.Conditions), nil
	})
	r.observe(t, "missing extension/Database", r.normalized(kindDatabase, cnpgName))
	r.observe(t, "missing extension/PostgresDatabase", func(ctx context.Context) (Value, error) {
		d, err := r.site.PG.PostgresV1alpha1().PostgresDatabases(ns).Get(ctx, "lacking", metav1.GetOptions{})
		if err != nil {
			return nil, err
		}
		return Conclusion(d.Status.Phase, d.Generation, d.Status.ObservedGeneration, d.Status.Conditions), nil
	})
}

// className is the scenarios' class, one per site namespace.
func (r *run) className() string { return "parity-" + r.site.Namespace }

// useRoles: the admin creates a table, rw writes to it, ro reads it and is
// refused a write; each outcome is its SQLSTATE ("ok" when it succeeded).
func (r *run) useRoles(ctx context.Context) (Value, error) {
	n := naming.Database(databaseName, dbName)
	out := map[string]any{}
	for _, s := range []struct {
		secret, what, sql string
	}{
		{n.AdminSecret, "admin creates a table", "CREATE TABLE IF NOT EXISTS items (id int PRIMARY KEY)"},
		{n.RWSecret, "rw writes", "INSERT INTO items VALUES (1) ON CONFLICT DO NOTHING"},
		{n.ROSecret, "ro reads", "SELECT count(*) FROM items"},
		{n.ROSecret, "ro writes", "INSERT INTO items VALUES (2)"},
		{n.RWSecret, "rw creates a database", "CREATE DATABASE parity_not_allowed"},
	} {
		code, err := r.exec(ctx, clusterName, s.secret, s.sql)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", s.what, err)
		}
		out[s.what] = code
	}
	return out, nil
}

// exec runs sql on cluster's database as the role of secret and returns
// "ok" (with the first column of the first row, if any) or Postgres's
// SQLSTATE; any other failure (no session) is an error.
func (r *run) exec(ctx context.Context, cluster, secret, sql string) (string, error) {
	sec, err := r.site.Kube.CoreV1().Secrets(r.site.Namespace).Get(ctx, secret, metav1.GetOptions{})
	if err != nil {
		return "", err
	}
	conn, err := r.site.Connect(ctx, cluster, dbName, string(sec.Data["username"]), string(sec.Data["password"]))
	if err != nil {
		return "", fmt.Errorf("connect as %s: %w", sec.Data["username"], err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	outcome := "ok"
	rows, err := conn.Query(ctx, sql)
	if err == nil {
		if rows.Next() {
			var v any
			if err = rows.Scan(&v); err == nil {
				outcome = fmt.Sprintf("ok: %v", v)
			}
		}
		rows.Close()
		if err == nil {
			err = rows.Err()
		}
	}
	var pgErr *pgconn.PgError
	switch {
	case err == nil:
		return outcome, nil
	case errors.As(err, &pgErr):
		return pgErr.Code, nil
	default:
		return "", err
	}
}

func (r *run) clusterPhase(name string, phase pgv1.Phase) func(ctx context.Context) (bool, string, error) {
	return func(ctx context.Context) (bool, string, error) {
		c, err := r.site.PG.PostgresV1alpha1().PostgresClusters(r.site.Namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, "", err
		}
		return c.Status.Phase == phase && c.Status.ObservedGeneration == c.Generation, fmt.Sprintf("%s %v", c.Status.Phase, c.Status.Conditions), nil
	}
}

// patchCluster merge-patches the PostgresCluster (as kubectl does).
func (r *run) patchCluster(t *testing.T, patch string) {
	t.Helper()
	if _, err := r.site.PG.PostgresV1alpha1().PostgresClusters(r.site.Namespace).Patch(t.Context(), clusterName, types.MergePatchType, []byte(patch), metav1.PatchOptions{}); err != nil {
		t.Fatalf("patch PostgresCluster: %v", err)
	}
}
