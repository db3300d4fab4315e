package sandbox

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"time"

	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// The objects of manifests/samples the demo waits for.
const (
	demoNamespace = "default"
	demoCluster   = "shop"
	demoDatabase  = "shop-app"
	demoDB        = "orders"
)

// Demo applies manifests/samples (a class, a cluster, a database), narrates
// the phases the operator drives them through, then uses the database the
// way an application would: connection info from the ConfigMap,
// credentials from the Secrets, TLS verified against the cluster's CA.
// The operator must be running (RunOperator).
func (sb *Sandbox) Demo(ctx context.Context, out io.Writer, samplesDir string) error {
	files, _ := filepath.Glob(filepath.Join(samplesDir, "*.yaml"))
	if len(files) == 0 {
		return fmt.Errorf("no samples in %s", samplesDir)
	}
	fmt.Fprintf(out, "demo: kubectl apply -f %s\n", samplesDir)
	if _, err := envtest.ApplyFiles(ctx, sb.Env.Config, "demo", files...); err != nil {
		return err
	}
	pg, err := versioned.NewForConfig(sb.Env.Config)
	if err != nil {
		return fmt.Errorf("setpoint client: %w", err)
	}
	if err := narrate(ctx, out, pg); err != nil {
		return err
	}
	return sb.useDatabase(ctx, out)
}

// narrate prints each phase change of the sample cluster and database
// until the database is Ready.
func narrate(ctx context.Context, out io.Writer, pg versioned.Interface) error {
	var lastCluster, lastDB string
	start := time.Now()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 3*time.Minute, true, func(ctx context.Context) (bool, error) {
		if c, err := pg.PostgresV1alpha1().PostgresClusters(demoNamespace).Get(ctx, demoCluster, metav1.GetOptions{}); err == nil {
			if s := describe(c.Status.Phase, c.Status.Conditions); s != lastCluster {
				lastCluster = s
				fmt.Fprintf(out, "demo: %6.1fs PostgresCluster %s: %s\n", time.Since(start).Seconds(), demoCluster, s)
			}
		}
		db, err := pg.PostgresV1alpha1().PostgresDatabases(demoNamespace).Get(ctx, demoDatabase, metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		if s := describe(db.Status.Phase, db.Status.Conditions); s != lastDB {
			lastDB = s
			fmt.Fprintf(out, "demo: %6.1fs PostgresDatabase %s: %s\n", time.Since(start).Seconds(), demoDatabase, s)
		}
		return db.Status.Phase == pgv1.PhaseReady && db.Status.ObservedGeneration == db.Generation, nil
	})
	if err != nil {
		return fmt.Errorf("waiting for PostgresDatabase %s to be Ready (last: %s): %w", demoDatabase, lastDB, err)
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
func (sb *Sandbox) useDatabase(ctx context.Context, out io.Writer) error {
	kube, err := kubernetes.NewForConfig(sb.Env.Config)
	if err != nil {
		return fmt.Errorf("kubernetes client: %w", err)
	}
	prefix := demoDatabase + "-" + demoDB
	admin, err := sb.connect(ctx, kube, prefix+"-config", prefix+"-admin")
	if err != nil {
		return err
	}
	defer admin.Close(context.WithoutCancel(ctx))
	rw, err := sb.connect(ctx, kube, prefix+"-config", prefix+"-rw")
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

// connect reads connection info and credentials the way an application
// would and connects with TLS verified against the cluster's CA.
func (sb *Sandbox) connect(ctx context.Context, kube kubernetes.Interface, configMap, secret string) (*pgx.Conn, error) {
	cm, err := kube.CoreV1().ConfigMaps(demoNamespace).Get(ctx, configMap, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("ConfigMap %s: %w", configMap, err)
	}
	sec, err := kube.CoreV1().Secrets(demoNamespace).Get(ctx, secret, metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("Secret %s: %w", secret, err)
	}
	ca, err := kube.CoreV1().Secrets(demoNamespace).Get(ctx, cm.Data["ca-secret"], metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("CA Secret: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	return postgres.NewConnector(postgres.NewHostMap(sb.HostMapPath)).Connect(ctx, postgres.Target{
		Namespace: demoNamespace, Cluster: demoCluster, Database: cm.Data["database"],
		User: string(sec.Data["username"]), Password: string(sec.Data["password"]), CACert: ca.Data[cm.Data["ca-secret-key"]],
	})
}
