package demo

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"strings"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"

	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// NodeSite is what the samples need to know of the real node: the
// PostgreSQL image it has, its StorageClass, and its S3 store.
type NodeSite struct {
	PostgresImage string // PostgreSQL 15 (the node's image)
	StorageClass  string
	S3Endpoint    string
	S3Bucket      string
}

// BackupSecret is the credentials Secret the fitted class names; the
// node's store accepts any key.
const BackupSecret = "backup-credentials"

// Fit adapts the samples to the node and adds what they presume: the
// class runs the node's PostgreSQL 15 image on 1 Gi volumes of the node's
// StorageClass without resource requests (the node has two cores), with
// small shared buffers and short checkpoints (a replica joins sooner),
// archives to the node's S3 store, and keeps a metrics Service instead of
// a PodMonitor (the node has no Prometheus Operator); the cluster's 20 Gi
// becomes 1 Gi; the backup credentials Secret is added. Everything else is
// the samples as a user applies them.
func (s NodeSite) Fit(objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	for _, o := range objs {
		var err error
		switch o.GetKind() {
		case "PostgresClusterClass":
			err = s.fitClass(o)
		case "PostgresCluster":
			err = unstructured.SetNestedField(o.Object, "1Gi", "spec", "storage", "size")
		}
		if err != nil {
			return nil, fmt.Errorf("fit %s %s to the node: %w", o.GetKind(), o.GetName(), err)
		}
	}
	secret := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata":   map[string]any{"name": BackupSecret, "namespace": Namespace},
		"stringData": map[string]any{"ACCESS_KEY_ID": "demo", "ACCESS_SECRET_KEY": "demo-secret"},
	}}
	return append([]*unstructured.Unstructured{secret}, objs...), nil
}

func (s NodeSite) fitClass(o *unstructured.Unstructured) error {
	unstructured.RemoveNestedField(o.Object, "spec", "resources")
	for _, f := range []struct {
		value any
		path  []string
	}{
		{s.PostgresImage, []string{"imageName"}},
		{int64(15), []string{"postgresVersion"}},
		{map[string]any{"size": "1Gi", "storageClass": s.StorageClass}, []string{"storage"}},
		{"32MB", []string{"postgresqlConfig", "shared_buffers"}},
		{"30s", []string{"postgresqlConfig", "checkpoint_timeout"}},
		{"0.1", []string{"postgresqlConfig", "checkpoint_completion_target"}},
		{map[string]any{"enabled": false, "service": true}, []string{"monitoring"}},
		{"s3://" + s.S3Bucket + "/demo", []string{"backup", "objectStore", "destinationPath"}},
		{s.S3Endpoint, []string{"backup", "objectStore", "endpointURL"}},
		{BackupSecret, []string{"backup", "objectStore", "credentialsSecretName"}},
	} {
		if err := unstructured.SetNestedField(o.Object, f.value, append([]string{"spec"}, f.path...)...); err != nil {
			return err
		}
	}
	return nil
}

// NodeConnector connects to a ConfigMap's host inside the node: the
// Service's cluster IP, dialled through the node's network namespace, with
// TLS verified against the cluster's CA for the host's name.
func NodeConnector(kube kubernetes.Interface, dial func(addr string) (net.Conn, error)) Connector {
	return func(ctx context.Context, cm *corev1.ConfigMap, user, password string, ca []byte) (*pgx.Conn, error) {
		host, port := cm.Data[naming.KeyHost], cm.Data[naming.KeyPort]
		service, rest, _ := strings.Cut(host, ".")
		namespace, _, _ := strings.Cut(rest, ".")
		svc, err := kube.CoreV1().Services(namespace).Get(ctx, service, metav1.GetOptions{})
		if err != nil {
			return nil, fmt.Errorf("Service of %s: %w", host, err)
		}
		cfg, err := NodeConnConfig(host, svc.Spec.ClusterIP, port, cm.Data[naming.KeyDatabase], ca, dial)
		if err != nil {
			return nil, err
		}
		cfg.User, cfg.Password = user, password
		return pgx.ConnectConfig(ctx, cfg)
	}
}

// NodeConnConfig is how an application in the node reaches a Service:
// by its name host (what TLS verifies, against ca), which resolves to the
// Service's cluster IP ip, dialled through the node's network namespace.
// User and password are the caller's.
func NodeConnConfig(host, ip, port, database string, ca []byte, dial func(addr string) (net.Conn, error)) (*pgx.ConnConfig, error) {
	cfg, err := pgx.ParseConfig(fmt.Sprintf("host=%s port=%s dbname=%s sslmode=verify-full", host, port, database))
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		return nil, fmt.Errorf("the CA for %s holds no certificate", host)
	}
	cfg.TLSConfig = &tls.Config{ServerName: host, RootCAs: pool, MinVersion: tls.VersionTLS12}
	cfg.LookupFunc = func(context.Context, string) ([]string, error) { return []string{ip}, nil }
	cfg.DialFunc = func(context.Context, string, string) (net.Conn, error) { return dial(net.JoinHostPort(ip, port)) }
	return cfg, nil
}
