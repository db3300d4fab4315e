package realcnpg

import (
	"fmt"
	"os"
	"path/filepath"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/setpoint-dev/setpoint/test/envtest"
)

// The S3 store's HTTPS port, served with a certificate a private CA of
// the test's signed (s3StoreTLS): no bundle of the barman-cloud sidecar
// trusts it, so an ObjectStore reaches it only through its endpointCA.
const (
	s3TLSPort = 9443
	// S3TLSSecret, in S3Namespace, holds the store's certificate and key
	// (tls.crt, tls.key) and the CA that signed them (ca.crt), which a
	// test copies into its own namespace for an endpointCA.
	S3TLSSecret = "s3store-tls"
)

// S3TLSEndpoint is the store's HTTPS URL for Pods of the node.
const S3TLSEndpoint = "https://s3store.backup-store.svc.cluster.local:9443"

// s3StoreTLS makes a private CA and the store's serving certificate, for
// the Service's names, in the Secret S3TLSSecret.
func s3StoreTLS() (*unstructured.Unstructured, error) {
	dir, err := os.MkdirTemp("", "s3store-tls-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	ca, err := envtest.NewCA(dir, "ca", "setpoint test S3 CA")
	if err != nil {
		return nil, err
	}
	host := s3Name + "." + S3Namespace
	certFile, keyFile, err := ca.Issue("s3store", envtest.Cert{CommonName: host + ".svc.cluster.local",
		DNSNames: []string{host + ".svc.cluster.local", host + ".svc", host}})
	if err != nil {
		return nil, err
	}
	data := map[string]any{"ca.crt": string(ca.PEM)}
	for key, file := range map[string]string{"tls.crt": certFile, "tls.key": keyFile} {
		b, err := os.ReadFile(file)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", filepath.Base(file), err)
		}
		data[key] = string(b)
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
		"metadata":   map[string]any{"name": S3TLSSecret, "namespace": S3Namespace},
		"stringData": data,
	}}, nil
}
