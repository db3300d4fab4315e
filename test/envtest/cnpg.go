package envtest

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"time"
)

const (
	// cnpgManagerName is CloudNativePG's manager in the bin directory,
	// built by `make controlplane` from test/controlplane/cnpg.
	cnpgManagerName = "cnpg-manager"
	// cnpgWebhookPort is the webhook server's port inside its private
	// network namespace; the bridge publishes it on a free loopback port.
	cnpgWebhookPort = 9443
	// cnpgOperatorNamespace is where a CNPG installation runs; nothing is
	// created there.
	cnpgOperatorNamespace = "cnpg-system"
	// cnpgWatchNamespace is an empty namespace (it never exists), so CNPG's
	// controllers act on nothing and only its stateless webhooks work:
	// the CNPG stand-in stays the only controller of CNPG objects.
	cnpgWatchNamespace = "cnpg-watches-nothing"
)

// cnpgWebhooks is CloudNativePG's manager running for its admission
// webhooks only, in a private network namespace joined to the host's
// loopback by two bridges: its API server port and its webhook port.
type cnpgWebhooks struct {
	ns       *netns
	proc     *process
	bridges  []*bridge
	hookPort int
	stopping atomic.Bool
}

// url is the webhook server's address as the API server reaches it.
func (w *cnpgWebhooks) url() string { return "https://127.0.0.1:" + strconv.Itoa(w.hookPort) }

// startCNPGWebhooks installs the VolumeSnapshot CRDs (CNPG looks for them
// once, at start), starts CNPG's manager, waits for its /readyz, installs
// its webhook configurations pointing at it and waits until the API server
// calls them. onExit runs if the manager ever ends on its own.
func (e *Environment) startCNPGWebhooks(ctx context.Context, binDir string, onExit func(error)) (err error) {
	if err := installSnapshotCRDs(ctx, e.Config); err != nil {
		return err
	}
	certDir, err := e.writeWebhookCerts()
	if err != nil {
		return err
	}
	w := &cnpgWebhooks{}
	e.cnpg = w
	if w.ns, err = newNetns(); err != nil {
		return err
	}
	if err := w.openBridges(e.apiPort); err != nil {
		return err
	}
	w.proc = newProcess(binDir, cnpgManagerName, e.dir, "controller",
		"--webhook-port", strconv.Itoa(cnpgWebhookPort),
		"--metrics-bind-address=0",
		"--leader-elect=false",
	)
	w.proc.env = []string{
		"KUBECONFIG=" + e.KubeconfigPath,
		"OPERATOR_NAMESPACE=" + cnpgOperatorNamespace,
		"WATCH_NAMESPACE=" + cnpgWatchNamespace,
		"WEBHOOK_CERT_DIR=" + certDir,
	}
	w.ns.do(func() { err = w.proc.start() })
	if err != nil {
		return err
	}
	if err := w.waitReady(ctx, e.pki.caPEM); err != nil {
		return err
	}
	go w.watch(onExit)
	if err := installWebhookConfigurations(ctx, e.Config, w.url(), e.pki.caPEM); err != nil {
		return err
	}
	return w.proc.waitFor(ctx, "its webhooks to be called by the API server", func(ctx context.Context) error {
		return probeWebhooks(ctx, e.Config)
	})
}

// openBridges makes the API server reachable inside the namespace at the
// same address as outside (so the admin kubeconfig serves both), and the
// webhook server reachable outside at a free loopback port.
func (w *cnpgWebhooks) openBridges(apiPort int) error {
	apiAddr := "127.0.0.1:" + strconv.Itoa(apiPort)
	inner, err := w.ns.listen(apiAddr)
	if err != nil {
		return fmt.Errorf("API server bridge: %w", err)
	}
	w.bridges = append(w.bridges, startBridge(inner, func() (net.Conn, error) {
		return net.DialTimeout("tcp", apiAddr, 5*time.Second)
	}))
	outer, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("webhook bridge: %w", err)
	}
	w.hookPort = outer.Addr().(*net.TCPAddr).Port
	hookAddr := "127.0.0.1:" + strconv.Itoa(cnpgWebhookPort)
	w.bridges = append(w.bridges, startBridge(outer, func() (net.Conn, error) {
		return w.ns.dial(hookAddr)
	}))
	return nil
}

// waitReady polls the webhook server's /readyz through the bridge,
// verifying its certificate against the environment's CA.
func (w *cnpgWebhooks) waitReady(ctx context.Context, caPEM []byte) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(caPEM)
	client := &http.Client{
		Timeout:   2 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}},
	}
	defer client.CloseIdleConnections()
	return w.proc.waitFor(ctx, "/readyz", func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, w.url()+"/readyz", nil)
		if err != nil {
			return err
		}
		resp, err := client.Do(req)
		if err != nil {
			return err
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			return fmt.Errorf("readyz: %s", resp.Status)
		}
		return nil
	})
}

// watch reports the manager's exit unless the environment is stopping it:
// the webhooks fail closed, so without it every CNPG write is refused.
func (w *cnpgWebhooks) watch(onExit func(error)) {
	<-w.proc.done
	if w.stopping.Load() {
		return
	}
	onExit(fmt.Errorf("CloudNativePG's webhook server (%s) exited: %v; its log ends:\n%s", cnpgManagerName, w.proc.err, w.proc.tail()))
}

// stop ends the manager, then the bridges and the namespace's thread.
func (w *cnpgWebhooks) stop() {
	w.stopping.Store(true)
	if w.proc != nil {
		w.proc.stop(5 * time.Second)
	}
	for _, b := range w.bridges {
		b.close()
	}
	if w.ns != nil {
		w.ns.close()
	}
}

// writeWebhookCerts puts the environment's serving certificate (issued by
// its CA for IP 127.0.0.1) where CNPG looks with WEBHOOK_CERT_DIR set, under
// the names it expects; CNPG then manages no certificate itself.
func (e *Environment) writeWebhookCerts() (string, error) {
	dir := filepath.Join(e.dir, "cnpg-webhook-certs")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("webhook cert dir: %w", err)
	}
	for src, name := range map[string]string{e.pki.certFile: "apiserver.crt", e.pki.keyFile: "apiserver.key"} {
		data, err := os.ReadFile(src)
		if err != nil {
			return "", fmt.Errorf("read %s: %w", src, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o600); err != nil {
			return "", fmt.Errorf("write %s: %w", name, err)
		}
	}
	return dir, nil
}

// failOnCNPGExit is the default reaction to the manager's death: print why
// and end the test binary (or sandbox) with status 1 after tearing the
// environment down, so that tests fail at once instead of waiting on
// writes every webhook now refuses.
func failOnCNPGExit(e *Environment) func(error) {
	return func(err error) {
		fmt.Fprintf(os.Stderr, "envtest: FATAL: %v\nenvtest: CNPG's webhooks fail closed: stopping the environment and exiting.\n", err)
		time.AfterFunc(30*time.Second, func() { os.Exit(1) })
		e.Stop()
		os.Exit(1)
	}
}

// startCNPGWhenReady starts CNPG's webhooks if they are wanted, not yet
// running, and every CNPG CRD is installed: CNPG's manager watches its
// kinds and will not start without them.
func (e *Environment) startCNPGWhenReady(ctx context.Context) error {
	if !e.cnpgPending {
		return nil
	}
	if e.skipCRDs != nil {
		skipped, err := cnpgCRDSkipped(e.skipCRDs)
		if err != nil || skipped {
			return err
		}
	}
	e.cnpgPending = false
	return e.startCNPGWebhooks(ctx, e.binDir, e.onCNPGExit)
}

// cnpgCRDSkipped reports whether skip leaves out any of CNPG's CRDs.
func cnpgCRDSkipped(skip func(string) bool) (bool, error) {
	dirs, err := moduleDirs(cnpgModule)
	if err != nil {
		return false, err
	}
	crds, err := readCRDs(filepath.Join(dirs[0], "config", "crd", "bases"))
	if err != nil {
		return false, err
	}
	for _, crd := range crds {
		if skip(crd.GetName()) {
			return true, nil
		}
	}
	return false, nil
}
