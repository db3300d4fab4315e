package envtest

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// CA is a throw-away certificate authority for a harness's components
// (kube-apiserver, kubelet, the node's client certificate), valid a day.
type CA struct {
	// PEM is the CA certificate; File holds it.
	PEM  []byte
	File string

	cert   *x509.Certificate
	key    *ecdsa.PrivateKey
	dir    string
	serial int64
}

// Cert says what a certificate Issue makes is for.
type Cert struct {
	CommonName   string
	Organization []string // groups, for a client certificate
	DNSNames     []string
	IPs          []net.IP
	Client       bool // client auth; otherwise server auth
	Server       bool // also server auth, when Client is set
}

// NewCA writes a fresh CA with the common name name into dir as <file>.crt.
func NewCA(dir, file, name string) (*CA, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: name},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse CA certificate: %w", err)
	}
	ca := &CA{
		PEM:  pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		File: filepath.Join(dir, file+".crt"),
		cert: cert, key: key, dir: dir, serial: 1,
	}
	if err := os.WriteFile(ca.File, ca.PEM, 0o600); err != nil {
		return nil, fmt.Errorf("write %s: %w", filepath.Base(ca.File), err)
	}
	return ca, nil
}

// Issue signs a certificate for c and writes it and its key into the CA's
// directory as <file>.crt and <file>.key, whose paths it returns.
func (ca *CA) Issue(file string, c Cert) (certFile, keyFile string, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return "", "", fmt.Errorf("generate %s key: %w", file, err)
	}
	ca.serial++
	usage := []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}
	if c.Client {
		usage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
		if c.Server {
			usage = append(usage, x509.ExtKeyUsageServerAuth)
		}
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(ca.serial),
		Subject:      pkix.Name{CommonName: c.CommonName, Organization: c.Organization},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(24 * time.Hour),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  usage,
		DNSNames:     c.DNSNames,
		IPAddresses:  c.IPs,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		return "", "", fmt.Errorf("create %s certificate: %w", file, err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return "", "", fmt.Errorf("marshal %s key: %w", file, err)
	}
	certFile, keyFile = filepath.Join(ca.dir, file+".crt"), filepath.Join(ca.dir, file+".key")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		return "", "", fmt.Errorf("write %s: %w", filepath.Base(certFile), err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		return "", "", fmt.Errorf("write %s: %w", filepath.Base(keyFile), err)
	}
	return certFile, keyFile, nil
}
