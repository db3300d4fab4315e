package pki

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"time"
)

const (
	certBlock = "CERTIFICATE"
	keyBlock  = "EC PRIVATE KEY"
)

// Authority is a CA that can sign: its certificate and private key.
type Authority struct {
	Cert    *x509.Certificate
	key     *ecdsa.PrivateKey
	CertPEM []byte
	KeyPEM  []byte
}

// NewAuthority makes a self-signed CA valid from an hour before now (for
// clocks a little behind) for validity. Its subject is unique: the name
// and the certificate's random serial.
func NewAuthority(commonName string, now time.Time, validity time.Duration) (*Authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	sn := serial()
	tmpl := &x509.Certificate{
		SerialNumber: sn,
		// The serial in the subject tells one CA of a name from its
		// successor: a verifier (OpenSSL, Postgres's handshake that lists
		// the CAs it trusts) finds issuers by subject.
		Subject:               pkix.Name{CommonName: commonName, Organization: []string{"setpoint"}, SerialNumber: sn.Text(16)},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(validity),
		IsCA:                  true,
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("sign CA certificate: %w", err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("parse CA certificate: %w", err)
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return nil, err
	}
	return &Authority{Cert: cert, key: key, CertPEM: encodeCert(der), KeyPEM: keyPEM}, nil
}

// ParseAuthority reads a CA back: the first certificate of certPEM (a
// bundle may follow it) and the key that must match it.
func ParseAuthority(certPEM, keyPEM []byte) (*Authority, error) {
	certs, err := ParseBundle(certPEM)
	if err != nil {
		return nil, err
	}
	pair, err := tls.X509KeyPair(encodeCert(certs[0].Raw), keyPEM)
	if err != nil {
		return nil, fmt.Errorf("CA key does not match its certificate: %w", err)
	}
	key, ok := pair.PrivateKey.(*ecdsa.PrivateKey)
	if !ok {
		return nil, errors.New("CA key is not an ECDSA key")
	}
	return &Authority{Cert: certs[0], key: key, CertPEM: encodeCert(certs[0].Raw), KeyPEM: keyPEM}, nil
}

// IssueClient signs a client certificate for commonName (Postgres's cert
// method matches it to the role name), valid from an hour before now.
func (a *Authority) IssueClient(commonName string, now time.Time, validity time.Duration) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate client key: %w", err)
	}
	notAfter := now.Add(validity)
	if notAfter.After(a.Cert.NotAfter) {
		notAfter = a.Cert.NotAfter // a leaf never outlives its CA
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial(),
		Subject:      pkix.Name{CommonName: commonName},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     notAfter,
		KeyUsage:     x509.KeyUsageDigitalSignature | x509.KeyUsageKeyAgreement,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.Cert, &key.PublicKey, a.key)
	if err != nil {
		return nil, nil, fmt.Errorf("sign client certificate: %w", err)
	}
	keyPEM, err = encodeKey(key)
	if err != nil {
		return nil, nil, err
	}
	return encodeCert(der), keyPEM, nil
}

func encodeCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: certBlock, Bytes: der})
}

func encodeKey(key *ecdsa.PrivateKey) ([]byte, error) {
	der, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: keyBlock, Bytes: der}), nil
}

func serial() *big.Int {
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		panic(fmt.Sprintf("read random serial: %v", err)) // crypto/rand does not fail on Linux
	}
	return n
}

// Redated is a's certificate issued again — same subject, key and key
// identifier, so it verifies what a signed — valid only from notBefore.
// A replaced CA stays trusted this way by a verifier that checks at the
// present (Postgres), while one that checks a certificate at its own
// NotBefore (CloudNativePG, deciding whether a certificate needs
// re-issuing after a CA change) no longer counts what a signed earlier
// as current. a must be self-signed.
func (a *Authority) Redated(notBefore time.Time) (*x509.Certificate, error) {
	tmpl := *a.Cert
	tmpl.SerialNumber = serial()
	tmpl.NotBefore = notBefore
	der, err := x509.CreateCertificate(rand.Reader, &tmpl, &tmpl, &a.key.PublicKey, a.key)
	if err != nil {
		return nil, fmt.Errorf("re-date CA certificate: %w", err)
	}
	return x509.ParseCertificate(der)
}
