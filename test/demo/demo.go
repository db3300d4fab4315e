// Package demo is what `make demo` shows, wherever CloudNativePG runs: it
// applies manifests/samples (a class, a cluster, a database), narrates the
// phases the operator drives them through, then uses the database the way
// an application would — connection info from the ConfigMap, credentials
// from the Secrets, TLS verified against the cluster's CA. The sandbox runs
// it against the CNPG stand-in, and `make demo CNPG=real` against real
// CloudNativePG on the real node (node.go).
package demo

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// The objects of manifests/samples the demo waits for.
const (
	Namespace = "default"
	Cluster   = "shop"
	Database  = "shop-app"
	DB        = "orders"
)

// Connector opens a session as user to the database a connection
// ConfigMap describes, verifying the server against ca.
type Connector func(ctx context.Context, cm *corev1.ConfigMap, user, password string, ca []byte) (*pgx.Conn, error)

// Options say where the demo runs.
type Options struct {
	Config  *rest.Config
	Samples string // the directory of the samples
	// Fit adapts the samples to where they run, and may add objects
	// (nil: as they are).
	Fit     func(objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error)
	Connect Connector
	// Timeout bounds the wait for a Ready database.
	Timeout time.Duration
}

// Run applies the samples, narrates them to Ready and uses the database.
func Run(ctx context.Context, out io.Writer, o Options) error {
	files, _ := filepath.Glob(filepath.Join(o.Samples, "*.yaml"))
	if len(files) == 0 {
		return fmt.Errorf("no samples in %s", o.Samples)
	}
	var objs []*unstructured.Unstructured
	for _, f := range files {
		decoded, err := envtest.DecodeFile(f)
		if err != nil {
			return err
		}
		objs = append(objs, decoded...)
	}
	if o.Fit != nil {
		var err error
		if objs, err = o.Fit(objs); err != nil {
			return err
		}
	}
	fmt.Fprintf(out, "demo: kubectl apply -f %s\n", o.Samples)
	if _, err := envtest.ApplyObjects(ctx, o.Config, "demo", objs); err != nil {
		return err
	}
	pg, err := versioned.NewForConfig(o.Config)
	if err != nil {
		return fmt.Errorf("setpoint client: %w", err)
	}
	kube, err := kubernetes.NewForConfig(o.Config)
	if err != nil {
		return fmt.Errorf("kubernetes client: %w", err)
	}
	if err := narrate(ctx, out, pg, o.Timeout); err != nil {
		return err
	}
	return useDatabase(ctx, out, kube, o.Connect)
}

// narrate prints each phase change of the sample cluster and database
// until the database is Ready.
func narrate(ctx context.Context, out io.Writer, pg versioned.Interface, timeout time.Duration) error {
	var lastCluster, lastDB string
	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, timeout, true, func(ctx context.Context) (bool, error) {
		if c, err := pg.PostgresV1alpha1().PostgresClusters(Namespace).Get(ctx, Cluster, metav1.GetOptions{}); err == nil {
			if s := describe(c.Status.Phase, c.Status.Conditions); s != lastCluster {
				lastCluster = s
				fmt.Fprintf(out, "demo: %6.1fs PostgresCluster %s: %s\n", time.Since(start).Seconds(), Cluster, s)
			}
		}
		db, err := pg.PostgresV1alpha1().PostgresDatabases(Namespace).Get(ctx, Database, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		if s := describe(db.Status.Phase, db.Status.Conditions); s != lastDB {
			lastDB = s
			fmt.Fprintf(out, "demo: %6.1fs PostgresDatabase %s: %s\n", time.Since(start).Seconds(), Database, s)
		}
		return db.Status.Phase == pgv1.PhaseReady && db.Status.ObservedGeneration == db.Generation, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for PostgresDatabase %s to be Ready (last: %s): %w", Database, lastDB, err)
	}
	return nil
}

func describe(phase pgv1.Phase, conds []metav1.Condition) string {
	for _, c := range conds {
		if c.Type == pgv1.ConditionReady && c.Status != metav1.ConditionTrue {
			return fmt.Sprintf("%s (%s: %s)", phase, c.Reason, c.Message)
		}
	}
	return string(phase)
}

// useDatabase connects as the admin role, creates a table, and writes and
// reads it as the rw role, through default privileges.
func useDatabase(ctx context.Context, out io.Writer, kube kubernetes.Interface, connect Connector) error {
	prefix := Database + "-" + DB
	admin, err := session(ctx, kube, connect, prefix+"-config", prefix+"-admin")
	if err != nil {
		return err
	}
	defer admin.Close(context.WithoutCancel(ctx))
	rw, err := session(ctx, kube, connect, prefix+"-config", prefix+"-rw")
	if err != nil {
		return err
	}
	defer rw.Close(context.WithoutCancel(ctx))
	steps := []struct {
		conn *pgx.Conn
		who  string
		sql  string
	}{
		{admin, "orders_admin", "CREATE TABLE IF NOT EXISTS items (id bigserial PRIMARY KEY, name text NOT NULL)"},
		{rw, "orders_rw", "INSERT INTO items (name) VALUES ('first order')"},
	}
	for _, s := range steps {
		if _, err := s.conn.Exec(ctx, s.sql); err != nil {
			return fmt.Errorf("%s: %s: %w", s.who, s.sql, err)
		}
		fmt.Fprintf(out, "demo: as %-12s %s\n", s.who, s.sql)
	}
	var n int
	if err := rw.QueryRow(ctx, "SELECT count(*) FROM items").Scan(&n); err != nil {
		return fmt.Errorf("orders_rw: select: %w", err)
	}
	fmt.Fprintf(out, "demo: as %-12s SELECT count(*) FROM items -> %d\n", "orders_rw", n)
	return nil
}

// session reads connection info and credentials the way an application
// would and connects.
func session(ctx context.Context, kube kubernetes.Interface, connect Connector, configMap, secret string) (*pgx.Conn, error) {
	cm, err := kube.CoreV1().ConfigMaps(Namespace).Get(ctx, configMap, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("ConfigMap %s: %w", configMap, err)
	}
	sec, err := kube.CoreV1().Secrets(Namespace).Get(ctx, secret, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("Secret %s: %w", secret, err)
	}
	ca, err := kube.CoreV1().Secrets(Namespace).Get(ctx, cm.Data["ca-secret"], metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("CA Secret: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return connect(ctx, cm, string(sec.Data["username"]), string(sec.Data["password"]), ca.Data[cm.Data["ca-secret-key"]])
}
