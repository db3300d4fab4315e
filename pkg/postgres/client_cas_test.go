package postgres

import (
	"bytes"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/binary"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/pki"
)

// serverCert is a self-signed certificate for shop-rw.ns.svc, its own CA.
type serverCert struct {
	pair    tls.Certificate
	certPEM []byte
}

func newServerCert(t *testing.T) serverCert {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "shop-rw.ns.svc"},
		DNSNames: []string{"shop-rw.ns.svc"}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return serverCert{pair: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key},
		certPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})}
}

// pgTLSServer answers one SSLRequest with 'S' and a TLS handshake that asks
// for a client certificate from clientCAs, as Postgres does with
// ssl_ca_file; it returns the address to dial.
func pgTLSServer(t *testing.T, server serverCert, clientCAs ...*x509.Certificate) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	pair := server.pair
	pool := x509.NewCertPool()
	for _, c := range clientCAs {
		pool.AddCert(c)
	}
	go func() {
		conn, err := ln.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		req := make([]byte, 8)
		if _, err := io.ReadFull(conn, req); err != nil || binary.BigEndian.Uint32(req[4:]) != sslRequestCode {
			return
		}
		if _, err := conn.Write([]byte{'S'}); err != nil {
			return
		}
		auth := tls.RequestClientCert
		if len(clientCAs) == 0 {
			auth = tls.NoClientCert
		}
		tc := tls.Server(conn, &tls.Config{Certificates: []tls.Certificate{pair}, ClientAuth: auth, ClientCAs: pool})
		_ = tc.Handshake()
		_, _ = tc.Read(make([]byte, 1)) // until the client closes
	}()
	return ln.Addr().String()
}

func hostMapTo(t *testing.T, addr string) *HostMap {
	t.Helper()
	path := filepath.Join(t.TempDir(), "hostmap.json")
	data, _ := json.Marshal(map[string]string{"shop-rw.ns.svc:5432": addr})
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return NewHostMap(path)
}

// The handshake lists exactly the CAs the server verifies client
// certificates with, and nothing is sent that could log in.
func TestAcceptedClientCAsReadsTheHandshake(t *testing.T) {
	now := time.Now()
	server := newServerCert(t)
	oldCA, _ := pki.NewAuthority("shop", now, time.Hour)
	newCA, _ := pki.NewAuthority("shop-client-ca", now, time.Hour)
	addr := pgTLSServer(t, server, oldCA.Cert, newCA.Cert)
	got, err := NewConnector(hostMapTo(t, addr)).AcceptedClientCAs(t.Context(), "ns", "shop", server.certPEM)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []*x509.Certificate{oldCA.Cert, newCA.Cert} {
		if !slices.ContainsFunc(got, func(dn []byte) bool { return bytes.Equal(dn, want.RawSubject) }) {
			t.Errorf("accepted CAs lack %s", want.Subject)
		}
	}

	bare := pgTLSServer(t, server)
	if _, err := NewConnector(hostMapTo(t, bare)).AcceptedClientCAs(t.Context(), "ns", "shop", server.certPEM); err == nil {
		t.Error("a server that asks for no client certificate was read as trusting none")
	}
	other, _ := pki.NewAuthority("other", now, time.Hour)
	if _, err := NewConnector(hostMapTo(t, pgTLSServer(t, server, newCA.Cert))).AcceptedClientCAs(t.Context(), "ns", "shop", other.CertPEM); err == nil {
		t.Error("a server whose certificate the given CA did not sign was believed")
	}
}
