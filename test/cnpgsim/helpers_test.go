package cnpgsim_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

var nsCounter atomic.Int64

// needControlPlane skips an integration test when the package runs without
// a control plane (-short, or no binaries outside `make test`).
func needControlPlane(t *testing.T) {
	t.Helper()
	if kube == nil {
		t.Skip("needs the control plane: run `make controlplane` (and not -short)")
	}
}

// newNamespace creates a namespace for one test and deletes it afterwards.
func newNamespace(t *testing.T) string {
	t.Helper()
	needControlPlane(t)
	name := strings.ToLower(strings.NewReplacer("/", "-", "_", "-").Replace(t.Name()))
	if len(name) > 40 {
		name = name[:40]
	}
	name = fmt.Sprintf("%s-%d", strings.Trim(name, "-"), nsCounter.Add(1))
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	if _, err := kube.CoreV1().Namespaces().Create(t.Context(), ns, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create namespace: %v", err)
	}
	t.Cleanup(func() {
		ctx := context.WithoutCancel(t.Context())
		_ = kube.CoreV1().Namespaces().Delete(ctx, name, metav1.DeleteOptions{})
	})
	return name
}

// eventually polls cond until it returns nil, failing with its last error.
func eventually(t *testing.T, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: not after %s: %v", what, timeout, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func boolPtr(b bool) *bool { return &b }

// basicAuth is a CNPG password Secret, labelled so changes are picked up.
func basicAuth(t *testing.T, ns, name, user, password string) {
	t.Helper()
	s := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{"cnpg.io/reload": "true"}},
		Type:       corev1.SecretTypeBasicAuth,
		StringData: map[string]string{"username": user, "password": password},
	}
	if _, err := kube.CoreV1().Secrets(ns).Create(t.Context(), s, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create secret %s: %v", name, err)
	}
}

func setPassword(t *testing.T, ns, name, password string) {
	t.Helper()
	s, err := kube.CoreV1().Secrets(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get secret: %v", err)
	}
	s.Data["password"] = []byte(password)
	if _, err := kube.CoreV1().Secrets(ns).Update(t.Context(), s, metav1.UpdateOptions{}); err != nil {
		t.Fatalf("update secret: %v", err)
	}
}

// newCluster is a one-instance Cluster with superuser access from the
// Secret "<name>-su" (password "su-<name>"), which it creates.
func newCluster(t *testing.T, ns, name string, mutate ...func(*cnpgv1.Cluster)) *cnpgv1.Cluster {
	t.Helper()
	basicAuth(t, ns, name+"-su", "postgres", "su-"+name)
	c := &cnpgv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: cnpgv1.ClusterSpec{
			Instances:             1,
			SuperuserSecret:       &cnpgv1.LocalObjectReference{Name: name + "-su"},
			EnableSuperuserAccess: boolPtr(true),
			Storage:               &cnpgv1.StorageConfiguration{Size: "1Gi"},
		},
	}
	for _, m := range mutate {
		m(c)
	}
	created, err := pg.CNPGV1().Clusters(ns).Create(t.Context(), c, metav1.CreateOptions{FieldValidation: "Strict"})
	if err != nil {
		t.Fatalf("create cluster: %v", err)
	}
	return created
}

func getCluster(t *testing.T, ns, name string) *cnpgv1.Cluster {
	t.Helper()
	c, err := pg.CNPGV1().Clusters(ns).Get(t.Context(), name, metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get cluster: %v", err)
	}
	return c
}

// updateCluster applies mutate to the latest Cluster, retrying conflicts
// with the Simulator's status writes.
func updateCluster(t *testing.T, ns, name string, mutate func(*cnpgv1.Cluster)) {
	t.Helper()
	eventually(t, 10*time.Second, "update cluster", func() error {
		c := getCluster(t, ns, name)
		mutate(c)
		_, err := pg.CNPGV1().Clusters(ns).Update(t.Context(), c, metav1.UpdateOptions{FieldValidation: "Strict"})
		return err
	})
}

func waitPhase(t *testing.T, ns, name, phase string) *cnpgv1.Cluster {
	t.Helper()
	var c *cnpgv1.Cluster
	eventually(t, 30*time.Second, "cluster phase "+phase, func() error {
		c = getCluster(t, ns, name)
		if c.Status.Phase != phase {
			return fmt.Errorf("phase %q (%s)", c.Status.Phase, c.Status.PhaseReason)
		}
		return nil
	})
	return c
}

func waitHealthy(t *testing.T, ns, name string) *cnpgv1.Cluster {
	t.Helper()
	return waitPhase(t, ns, name, "Cluster in healthy state")
}

// readHostMap reads the file the dedicated Simulator publishes.
func readHostMap(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(hostMapFile)
	if err != nil {
		t.Fatalf("read host map: %v", err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatalf("parse host map: %v", err)
	}
	return m
}

// dial connects the way a client inside Kubernetes would: to the Service
// name, TLS verified against the Cluster's CA with the Service name as
// server name; only the TCP dial goes through the host map.
func dial(ctx context.Context, hostMap map[string]string, ns, service, caCluster, user, password, database string) (*pgx.Conn, error) {
	ca, err := kube.CoreV1().Secrets(ns).Get(ctx, caCluster+"-ca", metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("get CA secret: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca.Data["ca.crt"]) {
		return nil, fmt.Errorf("no certificate in %s-ca", caCluster)
	}
	host := service + "." + ns + ".svc"
	cfg, err := pgx.ParseConfig("")
	if err != nil {
		return nil, err
	}
	cfg.Host, cfg.Port = host, 5432
	cfg.User, cfg.Password, cfg.Database = user, password, database
	cfg.TLSConfig = &tls.Config{RootCAs: pool, ServerName: host, MinVersion: tls.VersionTLS13}
	cfg.Fallbacks = nil
	cfg.ConnectTimeout = 5 * time.Second
	// No DNS for Service names here: keep the name, map it at dial time.
	cfg.LookupFunc = func(_ context.Context, host string) ([]string, error) { return []string{host}, nil }
	cfg.DialFunc = func(ctx context.Context, network, addr string) (net.Conn, error) {
		target, ok := hostMap[addr]
		if !ok {
			return nil, fmt.Errorf("%s is not in the host map", addr)
		}
		var d net.Dialer
		return d.DialContext(ctx, network, target)
	}
	return pgx.ConnectConfig(ctx, cfg)
}

// query runs one statement returning one value over a fresh connection.
func query[T any](t *testing.T, hostMap map[string]string, ns, cluster, user, password, database, sql string, args ...any) (T, error) {
	t.Helper()
	var v T
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	conn, err := dial(ctx, hostMap, ns, cluster+"-rw", cluster, user, password, database)
	if err != nil {
		return v, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	err = conn.QueryRow(ctx, sql, args...).Scan(&v)
	return v, err
}

// superQuery runs a query as the superuser of a Cluster made by newCluster.
func superQuery[T any](t *testing.T, ns, cluster, database, sql string, args ...any) T {
	t.Helper()
	v, err := query[T](t, readHostMap(t), ns, cluster, "postgres", "su-"+cluster, database, sql, args...)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return v
}
