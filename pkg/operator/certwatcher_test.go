package operator

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/ktesting"
)

// A rotation by cert-manager reaches a running metrics server: the kubelet
// swaps the Secret volume's ..data symlink, and a new handshake presents
// the new certificate with no restart.
func TestMetricsCertificateRotation(t *testing.T) {
	vol := &secretVolume{dir: t.TempDir()}
	first, second := newPair(t), newPair(t)
	vol.write(t, first)
	tlsCfg, err := metricsTLSConfig(t.Context(), vol.dir, 50*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	addr, err := serve(t.Context(), "127.0.0.1:0", http.NotFoundHandler(), tlsCfg)
	if err != nil {
		t.Fatal(err)
	}
	if got := presented(t, addr); !bytes.Equal(got, first.der) {
		t.Fatal("the server does not present the certificate it started with")
	}

	vol.write(t, second)
	waitPresented(t, addr, second.der)
	// And once more: the watcher follows every rotation, not just the first.
	vol.write(t, first)
	waitPresented(t, addr, first.der)
}

// A pair that does not load (the certificate replaced and the key not yet,
// as a directory updated file by file has for a moment) or files that are
// gone keep the old pair serving, logged once each; the complete new pair
// replaces it at the next check, and not before.
func TestCertWatcherKeepsOldPairUntilNewOneLoads(t *testing.T) {
	dir := t.TempDir()
	old, renewed := newPair(t), newPair(t)
	writeFile(t, filepath.Join(dir, "tls.crt"), old.crt)
	writeFile(t, filepath.Join(dir, "tls.key"), old.key)
	logger := ktesting.NewLogger(t, ktesting.NewConfig(ktesting.Verbosity(0), ktesting.BufferLogs(true)))
	errorsLogged := func() int {
		n := 0
		for _, e := range logger.GetSink().(ktesting.Underlier).GetBuffer().Data() {
			if e.Type == ktesting.LogError {
				n++
			}
		}
		return n
	}
	w, err := newCertWatcher(klog.NewContext(t.Context(), logger), dir, time.Minute)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	w.now = func() time.Time { return now }
	serving := func(want certPair, when string) {
		t.Helper()
		c, err := w.GetCertificate(nil)
		if err != nil {
			t.Fatalf("%s: %v", when, err)
		}
		if !bytes.Equal(c.Certificate[0], want.der) {
			t.Fatalf("%s: serves another certificate than expected", when)
		}
	}
	// Two checks in a row: the second must neither load nor log again.
	servingTwice := func(want certPair, when string) {
		t.Helper()
		for range 2 {
			now = now.Add(time.Minute)
			serving(want, when)
		}
	}

	writeFile(t, filepath.Join(dir, "tls.crt"), renewed.crt)
	servingTwice(old, "new certificate, old key")
	if n := errorsLogged(); n != 1 {
		t.Fatalf("a pair that does not load logged %d errors, want 1", n)
	}

	writeFile(t, filepath.Join(dir, "tls.key"), renewed.key)
	now = now.Add(time.Minute - time.Second)
	serving(old, "complete pair, before the check interval")
	now = now.Add(time.Second)
	serving(renewed, "complete pair, at the check interval")

	for _, f := range []string{"tls.crt", "tls.key"} {
		if err := os.Remove(filepath.Join(dir, f)); err != nil {
			t.Fatal(err)
		}
	}
	servingTwice(renewed, "files removed")
	if n := errorsLogged(); n != 2 {
		t.Fatalf("%d errors logged after the files went, want 2 (one for the half-written pair, one for the missing files)", n)
	}
}

// The first pair must load: a wrong --metrics-cert-dir fails at start.
func TestCertWatcherRefusesMissingPair(t *testing.T) {
	if _, err := metricsTLSConfig(t.Context(), t.TempDir(), time.Second); err == nil || !strings.Contains(err.Error(), "tls.crt") {
		t.Fatalf("an empty directory: %v, want an error naming tls.crt", err)
	}
}

// certPair is a serving certificate as files hold it, and its DER to
// compare with what a handshake presents.
type certPair struct{ crt, key, der []byte }

func newPair(t *testing.T) certPair {
	t.Helper()
	cert, err := selfSignedCertificate()
	if err != nil {
		t.Fatal(err)
	}
	key, err := x509.MarshalPKCS8PrivateKey(cert.PrivateKey)
	if err != nil {
		t.Fatal(err)
	}
	return certPair{
		crt: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Certificate[0]}),
		key: pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: key}),
		der: cert.Certificate[0],
	}
}

// secretVolume lays files out as the kubelet does in a Secret volume: the
// data in a timestamped directory, ..data a symlink to it, and tls.crt and
// tls.key symlinks through ..data. An update writes a new directory and
// renames a new ..data over the old one, so both files change at once.
type secretVolume struct {
	dir     string
	version int
}

func (v *secretVolume) write(t *testing.T, p certPair) {
	t.Helper()
	v.version++
	data := fmt.Sprintf("..2026_01_01_00_00_%02d.%d", v.version, v.version)
	if err := os.Mkdir(filepath.Join(v.dir, data), 0o755); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(v.dir, data, "tls.crt"), p.crt)
	writeFile(t, filepath.Join(v.dir, data, "tls.key"), p.key)
	previous, _ := os.Readlink(filepath.Join(v.dir, "..data"))
	tmp := filepath.Join(v.dir, "..data_tmp")
	if err := os.Symlink(data, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, filepath.Join(v.dir, "..data")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"tls.crt", "tls.key"} {
		if _, err := os.Lstat(filepath.Join(v.dir, f)); os.IsNotExist(err) {
			if err := os.Symlink(filepath.Join("..data", f), filepath.Join(v.dir, f)); err != nil {
				t.Fatal(err)
			}
		}
	}
	if previous != "" {
		if err := os.RemoveAll(filepath.Join(v.dir, previous)); err != nil {
			t.Fatal(err)
		}
	}
}

func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

// presented is the certificate a fresh handshake with addr presents. No
// session cache: every dial is a full handshake.
func presented(t *testing.T, addr string) []byte {
	t.Helper()
	der, err := handshake(t.Context(), addr)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

func handshake(ctx context.Context, addr string) ([]byte, error) {
	// The test compares the presented certificate itself, byte for byte.
	d := tls.Dialer{Config: &tls.Config{InsecureSkipVerify: true}} //nolint:gosec // see above
	conn, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("handshake with %s: %w", addr, err)
	}
	defer conn.Close()
	return conn.(*tls.Conn).ConnectionState().PeerCertificates[0].Raw, nil
}

// waitPresented polls fresh handshakes until addr presents want.
func waitPresented(t *testing.T, addr string, want []byte) {
	t.Helper()
	var last error
	err := wait.PollUntilContextTimeout(t.Context(), 20*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		got, err := handshake(ctx, addr)
		switch {
		case err != nil && ctx.Err() == nil:
			last = err
		case err == nil && !bytes.Equal(got, want):
			last = errors.New("the previous certificate is still presented")
		}
		return err == nil && bytes.Equal(got, want), nil
	})
	if err != nil {
		t.Fatalf("the rotated certificate was not presented within 10s: %v (last: %v)", err, last)
	}
}
