package sandbox

import (
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
)

// DemoCluster shows the stand-in at work without the operator: it creates
// a one-instance CNPG Cluster with superuser access, waits until CNPG's
// status says healthy, and connects to `<name>-rw.<ns>.svc` the way the
// operator does (TLS verified against `<name>-ca`, address from the host
// map), narrating each step to out.
func (sb *Sandbox) DemoCluster(ctx context.Context, out io.Writer, namespace, name string) error {
	kube, err := kubernetes.NewForConfig(sb.Env.Config)
	if err != nil {
		return fmt.Errorf("kubernetes client: %w", err)
	}
	cnpg, err := versioned.NewForConfig(sb.Env.Config)
	if err != nil {
		return fmt.Errorf("cnpg client: %w", err)
	}
	password := rand.Text()
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name + "-superuser", Namespace: namespace},
		Type:       corev1.SecretTypeBasicAuth,
		StringData: map[string]string{"username": "postgres", "password": password},
	}
	if _, err := kube.CoreV1().Secrets(namespace).Create(ctx, secret, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create superuser secret: %w", err)
	}
	enable := true
	cluster := &cnpgv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: namespace},
		Spec: cnpgv1.ClusterSpec{
			Instances:             1,
			EnableSuperuserAccess: &enable,
			SuperuserSecret:       &cnpgv1.LocalObjectReference{Name: secret.Name},
			Storage:               &cnpgv1.StorageConfiguration{Size: "1Gi"},
		},
	}
	fmt.Fprintf(out, "demo: creating CNPG Cluster %s/%s\n", namespace, name)
	if _, err := cnpg.CNPGV1().Clusters(namespace).Create(ctx, cluster, metav1.CreateOptions{FieldValidation: "Strict"}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create cluster: %w", err)
	}
	last := ""
	err = wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		c, err := cnpg.CNPGV1().Clusters(namespace).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		if c.Status.Phase != last && c.Status.Phase != "" {
			last = c.Status.Phase
			fmt.Fprintf(out, "demo: phase %q (ready instances %d)\n", last, c.Status.ReadyInstances)
		}
		return last == "Cluster in healthy state", nil
	})
	if err != nil {
		return fmt.Errorf("wait for a healthy cluster: %w", err)
	}
	host := name + "-rw." + namespace + ".svc"
	version, err := sb.queryVersion(ctx, kube, namespace, name, host, password)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "demo: connected to %s:5432 over TLS (verified with %s-ca) as postgres: %s\n", host, name, version)
	return nil
}

func (sb *Sandbox) queryVersion(ctx context.Context, kube kubernetes.Interface, namespace, cluster, host, password string) (string, error) {
	ca, err := kube.CoreV1().Secrets(namespace).Get(ctx, cluster+"-ca", metav1.GetOptions{})
	if err != nil {
		return "", fmt.Errorf("get CA secret: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca.Data["ca.crt"]) {
		return "", errors.New("no certificate in the CA secret")
	}
	cfg, err := pgx.ParseConfig("")
	if err != nil {
		return "", fmt.Errorf("pgx config: %w", err)
	}
	cfg.Host, cfg.Port, cfg.User, cfg.Password, cfg.Database = host, 5432, "postgres", password, "postgres"
	cfg.TLSConfig = &tls.Config{RootCAs: pool, ServerName: host, MinVersion: tls.VersionTLS13}
	cfg.Fallbacks = nil
	cfg.LookupFunc = func(_ context.Context, host string) ([]string, error) { return []string{host}, nil }
	cfg.DialFunc = sb.dialThroughHostMap
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return "", fmt.Errorf("connect to %s: %w", host, err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var version string
	if err := conn.QueryRow(ctx, "SELECT version()").Scan(&version); err != nil {
		return "", fmt.Errorf("query version: %w", err)
	}
	return version, nil
}

// dialThroughHostMap reads the host map file as the operator does.
func (sb *Sandbox) dialThroughHostMap(ctx context.Context, network, addr string) (net.Conn, error) {
	data, err := os.ReadFile(sb.HostMapPath)
	if err != nil {
		return nil, fmt.Errorf("read host map: %w", err)
	}
	m := map[string]string{}
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("parse host map: %w", err)
	}
	target, ok := m[addr]
	if !ok {
		return nil, fmt.Errorf("%s is not in the host map", addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, target)
}
