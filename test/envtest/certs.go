package envtest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net"
	"os"
	"path/filepath"
)

// pki holds the files kube-apiserver needs: a CA, a serving certificate
// signed by it, and the service-account signing key.
type pki struct {
	ca         *CA
	caPEM      []byte
	caFile     string
	certFile   string
	keyFile    string
	saKeyFile  string
	saPubFile  string
	tokenFile  string
	adminToken string
}

// newPKI writes a fresh CA, a serving certificate for 127.0.0.1 and
// localhost, a service-account key pair and a token file with one admin
// token in group system:masters into dir.
func newPKI(dir string) (*pki, error) {
	return newPKIFor(dir, []net.IP{net.ParseIP("127.0.0.1")}, []string{"localhost"})
}

// newPKIFor is newPKI with a serving certificate for ips and dnsNames.
func newPKIFor(dir string, ips []net.IP, dnsNames []string) (*pki, error) {
	ca, err := NewCA(dir, "ca", "setpoint-envtest-ca")
	if err != nil {
		return nil, err
	}
	certFile, keyFile, err := ca.Issue("apiserver", Cert{
		CommonName: "kube-apiserver",
		DNSNames:   dnsNames,
		IPs:        ips,
	})
	if err != nil {
		return nil, err
	}
	saKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		return nil, fmt.Errorf("generate service-account key: %w", err)
	}
	saPub, err := x509.MarshalPKIXPublicKey(&saKey.PublicKey)
	if err != nil {
		return nil, fmt.Errorf("marshal service-account public key: %w", err)
	}
	token, err := randomToken()
	if err != nil {
		return nil, err
	}

	p := &pki{
		ca:         ca,
		caPEM:      ca.PEM,
		caFile:     ca.File,
		certFile:   certFile,
		keyFile:    keyFile,
		saKeyFile:  filepath.Join(dir, "sa.key"),
		saPubFile:  filepath.Join(dir, "sa.pub"),
		tokenFile:  filepath.Join(dir, "tokens.csv"),
		adminToken: token,
	}
	files := map[string][]byte{
		p.saKeyFile: pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(saKey)}),
		p.saPubFile: pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: saPub}),
		// token,user,uid,"groups"
		p.tokenFile: fmt.Appendf(nil, "%s,envtest-admin,envtest-admin,\"system:masters\"\n", token),
	}
	for path, data := range files {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			return nil, fmt.Errorf("write %s: %w", filepath.Base(path), err)
		}
	}
	return p, nil
}

func randomToken() (string, error) {
	b := make([]byte, 24)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("generate token: %w", err)
	}
	return fmt.Sprintf("%x", b), nil
}
