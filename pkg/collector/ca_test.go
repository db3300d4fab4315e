package collector

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"io"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	cnpglisters "github.com/setpoint-dev/setpoint/pkg/generated/listers/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// countingCAs hands out one CA and counts how often it is forgotten.
type countingCAs struct {
	mu      sync.Mutex
	ca      []byte
	forgets int
}

func (c *countingCAs) Get(context.Context, string, string) ([]byte, error) { return c.ca, nil }
func (c *countingCAs) Forget(string, string) {
	c.mu.Lock()
	c.forgets++
	c.mu.Unlock()
}

// newCA returns a CA certificate (PEM) and a certificate for host signed
// by it.
func newCA(t *testing.T, host string) ([]byte, tls.Certificate) {
	t.Helper()
	key := func() *ecdsa.PrivateKey {
		k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		if err != nil {
			t.Fatal(err)
		}
		return k
	}
	caKey, leafKey := key(), key()
	ca := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ca"}, IsCA: true,
		BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	leaf := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: host}, DNSNames: []string{host},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		NotBefore:   time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour)}
	leafDER, err := x509.CreateCertificate(rand.Reader, leaf, ca, &leafKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		tls.Certificate{Certificate: [][]byte{leafDER}, PrivateKey: leafKey}
}

// tlsOnlyServer answers Postgres's SSLRequest and the TLS handshake with
// cert, then hangs up: enough for a client to verify (or reject) it.
func tlsOnlyServer(t *testing.T, cert tls.Certificate) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	go func() {
		for {
			conn, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer conn.Close()
				if _, err := io.ReadFull(conn, make([]byte, 8)); err != nil {
					return
				}
				if _, err := conn.Write([]byte("S")); err != nil {
					return
				}
				_ = tls.Server(conn, &tls.Config{Certificates: []tls.Certificate{cert}}).Handshake()
			}()
		}
	}()
	return l.Addr().String()
}

// TestCAForgottenOnlyWhenRejected: the collector reads a cluster's CA
// again only when the server's certificate fails verification against
// it (the CA rotated), not for every failed connection: a primary that is
// down costs no API read per sample.
func TestCAForgottenOnlyWhenRejected(t *testing.T) {
	pc := readyCluster("shop", nil)
	pc.UID = "uid-shop"
	host := naming.Host(pc.Namespace, naming.RWService(pc.Name))
	rightCA, cert := newCA(t, host)
	wrongCA, _ := newCA(t, host)
	up := tlsOnlyServer(t, cert)
	down, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	downAddr := down.Addr().String()
	_ = down.Close() // nothing listens there any more: connection refused

	secrets := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = secrets.Add(monitorSecret(pc, pc.UID))
	pc.Status.Resources = &pgv1.ClusterResources{MonitorSecretRef: &pgv1.LocalObjectReference{Name: pc.Name + "-monitor"}}
	for _, c := range []struct {
		name   string
		addr   string
		ca     []byte
		forget bool
	}{
		{"certificate not signed by the CA held", up, wrongCA, true},
		{"certificate verified, then the server hung up", up, rightCA, false},
		{"primary down", downAddr, rightCA, false},
	} {
		hosts := filepath.Join(t.TempDir(), "hosts.json")
		b, _ := json.Marshal(map[string]string{net.JoinHostPort(host, "5432"): c.addr})
		if err := os.WriteFile(hosts, b, 0o600); err != nil {
			t.Fatal(err)
		}
		cas := &countingCAs{ca: c.ca}
		col := &Collector{opts: Options{Timeout: 5 * time.Second}.withDefaults(), deps: Deps{
			Connector:    postgres.NewConnector(postgres.NewHostMap(hosts)),
			CNPGClusters: cnpglisters.NewClusterLister(cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})),
			Secrets:      corelisters.NewSecretLister(secrets),
			CAs:          cas,
			Metrics:      NewMetrics(prometheus.NewRegistry()),
		}}
		_, err := col.roundTrip(t.Context(), pc)
		if err == nil {
			t.Fatalf("%s: the round trip succeeded", c.name)
		}
		if got := cas.forgets > 0; got != c.forget {
			t.Errorf("%s: CA forgotten = %v, want %v (error: %v)", c.name, got, c.forget, err)
		}
	}
}
