package operator

import (
	"bytes"
	"context"
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"k8s.io/klog/v2"
)

// certCheckInterval is how often, at most, a handshake re-reads the
// certificate files. cert-manager renews well ahead of expiry and the
// kubelet takes up to a minute to update a Secret volume, so seconds are
// plenty, and a scrape every few seconds costs two small file reads at
// most this often.
const certCheckInterval = 10 * time.Second

// certWatcher serves the metrics certificate from a directory and picks up
// a rotation without a restart, as controller-runtime's certwatcher does
// (which the operator cannot import): cert-manager writes the renewed
// pair into the Secret, the kubelet swaps the volume's ..data symlink, and
// the first handshake after the next check presents the new pair. Checks
// happen on handshakes, rate-limited, so no goroutine outlives the server
// and a certificate nobody asks for is never read.
type certWatcher struct {
	certFile, keyFile string
	interval          time.Duration
	now               func() time.Time
	logger            klog.Logger

	mu      sync.Mutex
	cert    *tls.Certificate
	checked time.Time
	// seenCert and seenKey are the last contents read, loaded or not: a
	// pair that failed to load is not retried (nor logged again) until
	// either file changes.
	seenCert, seenKey []byte
	// failing is the last read failure logged, so a missing file is
	// logged once rather than at every check.
	failing string
}

// newCertWatcher loads tls.crt and tls.key from dir; the first pair must
// load, later ones replace it only when they do.
func newCertWatcher(ctx context.Context, dir string, interval time.Duration) (*certWatcher, error) {
	w := &certWatcher{
		certFile: filepath.Join(dir, "tls.crt"),
		keyFile:  filepath.Join(dir, "tls.key"),
		interval: interval,
		now:      time.Now,
		logger:   klog.FromContext(ctx).WithValues("dir", dir),
	}
	crt, key, err := w.read()
	if err != nil {
		return nil, fmt.Errorf("load metrics serving certificate: %w", err)
	}
	cert, err := tls.X509KeyPair(crt, key)
	if err != nil {
		return nil, fmt.Errorf("load metrics serving certificate: %w", err)
	}
	w.cert, w.seenCert, w.seenKey, w.checked = &cert, crt, key, w.now()
	return w, nil
}

// GetCertificate is tls.Config's hook: the current pair, re-read first
// when the last check is older than the interval.
func (w *certWatcher) GetCertificate(*tls.ClientHelloInfo) (*tls.Certificate, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if now := w.now(); now.Sub(w.checked) >= w.interval {
		w.checked = now
		w.reload()
	}
	return w.cert, nil
}

// reload replaces the pair when the files hold a different one that
// loads. A pair that does not load — the certificate written and the key
// not yet, in a directory updated file by file — keeps the old one
// serving: scrapes go on, and the next change is tried again.
func (w *certWatcher) reload() {
	crt, key, err := w.read()
	if err != nil {
		if err.Error() != w.failing {
			w.failing = err.Error()
			w.logger.Error(err, "Keeping the metrics serving certificate: cannot read its files")
		}
		return
	}
	w.failing = ""
	if bytes.Equal(crt, w.seenCert) && bytes.Equal(key, w.seenKey) {
		return
	}
	w.seenCert, w.seenKey = crt, key
	cert, err := tls.X509KeyPair(crt, key)
	if err != nil {
		w.logger.Error(err, "Keeping the metrics serving certificate: the new pair does not load")
		return
	}
	w.cert = &cert
	w.logger.Info("Reloaded the metrics serving certificate", "notAfter", notAfter(&cert))
}

// read reads both files; through the ..data symlink of a Secret volume
// each read sees one complete version of its file.
func (w *certWatcher) read() (crt, key []byte, err error) {
	if crt, err = os.ReadFile(w.certFile); err != nil {
		return nil, nil, fmt.Errorf("read certificate: %w", err)
	}
	if key, err = os.ReadFile(w.keyFile); err != nil {
		return nil, nil, fmt.Errorf("read key: %w", err)
	}
	return crt, key, nil
}

// notAfter is the leaf's expiry, for the log: it tells whether the
// renewed certificate is the one expected. X509KeyPair parses the leaf.
func notAfter(cert *tls.Certificate) time.Time {
	if cert.Leaf == nil {
		return time.Time{}
	}
	return cert.Leaf.NotAfter
}
