package realcnpg

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// barmanCloudTLS makes the two Secrets the plugin's release manifest has
// cert-manager issue: barman-cloud-server-tls, the gRPC server's
// certificate for the Service name barman-cloud (CNPG trusts its tls.crt
// and checks that name), and barman-cloud-client-tls, the certificate CNPG
// presents (the plugin trusts its tls.crt). Like cert-manager's selfSigned
// Issuer, each certificate is self-signed and is its own ca.crt.
func barmanCloudTLS() ([]*unstructured.Unstructured, error) {
	certs := []struct {
		secret, commonName string
		dnsNames           []string
		usage              x509.ExtKeyUsage
	}{
		{"barman-cloud-server-tls", "barman-cloud", []string{"barman-cloud"}, x509.ExtKeyUsageServerAuth},
		{"barman-cloud-client-tls", "barman-cloud-client", nil, x509.ExtKeyUsageClientAuth},
	}
	var out []*unstructured.Unstructured
	for i, c := range certs {
		crt, key, err := selfSigned(int64(i+1), c.commonName, c.dnsNames, c.usage)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.secret, err)
		}
		out = append(out, &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "v1", "kind": "Secret", "type": "kubernetes.io/tls",
			"metadata":   map[string]any{"name": c.secret, "namespace": CNPGNamespace},
			"stringData": map[string]any{"tls.crt": string(crt), "tls.key": string(key), "ca.crt": string(crt)},
		}})
	}
	return out, nil
}

// selfSigned returns a PEM certificate and key valid for a day.
func selfSigned(serial int64, commonName string, dnsNames []string, usage x509.ExtKeyUsage) (crt, key []byte, err error) {
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(serial),
		Subject:               pkix.Name{CommonName: commonName},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{usage},
		DNSNames:              dnsNames,
		BasicConstraintsValid: true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &k.PublicKey, k)
	if err != nil {
		return nil, nil, fmt.Errorf("create certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		return nil, nil, fmt.Errorf("marshal key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}
