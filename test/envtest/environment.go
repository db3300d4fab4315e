package envtest

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// Options tune an Environment.
type Options struct {
	// CRDDirs are directories of CRD YAML files to install besides the CNPG
	// CRDs. Defaults to the repository's manifests/crd and the PodMonitor
	// CRD in test/envtest/crds.
	CRDDirs []string
	// SkipCRDs leaves out the CRDs (by name, e.g.
	// "objectstores.barmancloud.cnpg.io") for which it returns true: for
	// tests of an operator started without them. InstallCRDs adds them later.
	SkipCRDs func(name string) bool
	// StartTimeout bounds start-up, including CRD installation.
	StartTimeout time.Duration
	// NoCNPGWebhooks leaves out CloudNativePG's admission webhooks, which
	// otherwise judge every CNPG object as in a real installation. With
	// SkipCRDs leaving out CNPG's CRDs, they start when InstallCRDs adds
	// the last of them.
	NoCNPGWebhooks bool
	// OnCNPGExit runs if CNPG's webhook server dies while the environment
	// runs. By default the environment stops and the process exits with
	// status 1, since every CNPG write would now be refused.
	OnCNPGExit func(error)
}

// Environment is a running control plane.
type Environment struct {
	// Config is an admin (system:masters) client configuration.
	Config *rest.Config
	// KubeconfigPath is a kubeconfig file for the admin user.
	KubeconfigPath string

	dir        string
	binDir     string
	crdDirs    []string
	skipCRDs   func(string) bool
	cleanups   []func()
	pki        *pki
	apiPort    int
	etcd       *process
	apiserver  *process
	controller *process

	// cnpg runs CNPG's webhooks; cnpgPending while they wait for CNPG's CRDs.
	cnpg        *cnpgWebhooks
	cnpgPending bool
	onCNPGExit  func(error)
	stopMu      sync.Mutex
}

// Start runs etcd, kube-apiserver and kube-controller-manager, installs the
// CRDs and returns once they are Established. On error everything started
// so far is stopped and removed.
func Start(ctx context.Context, opts Options) (env *Environment, err error) {
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, opts.StartTimeout)
	defer cancel()

	binDir, err := findBinDir()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "setpoint-envtest-")
	if err != nil {
		return nil, fmt.Errorf("create temp dir: %w", err)
	}
	env = &Environment{dir: dir, binDir: binDir, skipCRDs: opts.SkipCRDs, cnpgPending: !opts.NoCNPGWebhooks}
	env.onCNPGExit = opts.OnCNPGExit
	if env.onCNPGExit == nil {
		env.onCNPGExit = failOnCNPGExit(env)
	}
	defer func() {
		if err != nil {
			env.Stop()
			env = nil
		}
	}()
	if env.pki, err = newPKI(dir); err != nil {
		return env, err
	}
	ports, err := freePorts(3)
	if err != nil {
		return env, err
	}
	etcdURL := "http://127.0.0.1:" + strconv.Itoa(ports[0])
	env.apiPort = ports[2]
	env.etcd = newProcess(binDir, "etcd", dir,
		"--data-dir", filepath.Join(dir, "etcd"),
		"--listen-client-urls", etcdURL,
		"--advertise-client-urls", etcdURL,
		"--listen-peer-urls", "http://127.0.0.1:"+strconv.Itoa(ports[1]),
		"--unsafe-no-fsync",
		"--log-level", "warn",
	)
	env.apiserver = newProcess(binDir, "kube-apiserver", dir, env.apiserverArgs(etcdURL)...)
	env.Config = env.adminConfig()
	if env.KubeconfigPath, err = env.writeKubeconfig(); err != nil {
		return env, err
	}
	env.controller = newProcess(binDir, "kube-controller-manager", dir,
		"--kubeconfig", env.KubeconfigPath,
		"--controllers", "garbagecollector,namespace",
		"--leader-elect=false",
		"--secure-port=0",
		"--concurrent-gc-syncs=5",
	)

	if err = env.etcd.start(); err != nil {
		return env, err
	}
	if err = env.startAPIServer(ctx); err != nil {
		return env, err
	}
	if err = env.controller.start(); err != nil {
		return env, err
	}
	env.crdDirs = opts.CRDDirs
	if env.crdDirs == nil {
		if env.crdDirs, err = defaultCRDDirs(); err != nil {
			return env, err
		}
	}
	if err = installCRDs(ctx, env.Config, env.crdDirs, opts.SkipCRDs); err != nil {
		return env, err
	}
	if err = env.startCNPGWhenReady(ctx); err != nil {
		return env, err
	}
	return env, nil
}

// InstallCRDs installs the environment's CRDs for which only returns true
// (those Options.SkipCRDs left out, say) and waits until they are
// Established.
// CNPG's webhooks start once the last of CNPG's CRDs is in.
func (e *Environment) InstallCRDs(ctx context.Context, only func(name string) bool) error {
	if err := installCRDs(ctx, e.Config, e.crdDirs, func(name string) bool { return !only(name) }); err != nil {
		return err
	}
	if skip := e.skipCRDs; skip != nil {
		e.skipCRDs = func(name string) bool { return skip(name) && !only(name) }
	}
	return e.startCNPGWhenReady(ctx)
}

func (e *Environment) apiserverArgs(etcdURL string) []string {
	return []string{
		"--etcd-servers", etcdURL,
		"--bind-address", "127.0.0.1",
		"--advertise-address", "127.0.0.1",
		// Loopback cannot be advertised through the kubernetes Endpoints.
		"--endpoint-reconciler-type", "none",
		"--secure-port", strconv.Itoa(e.apiPort),
		"--cert-dir", filepath.Join(e.dir, "apiserver-certs"),
		"--tls-cert-file", e.pki.certFile,
		"--tls-private-key-file", e.pki.keyFile,
		"--client-ca-file", e.pki.caFile,
		"--token-auth-file", e.pki.tokenFile,
		"--authorization-mode", "RBAC",
		"--service-account-issuer", "https://127.0.0.1:" + strconv.Itoa(e.apiPort),
		"--service-account-key-file", e.pki.saPubFile,
		"--service-account-signing-key-file", e.pki.saKeyFile,
		// A /16: the CNPG stand-in makes three Services per Cluster, and
		// benchmarks run hundreds of Clusters.
		"--service-cluster-ip-range", "10.0.0.0/16",
		"--disable-admission-plugins", "ServiceAccount",
		// As on OpenShift: a blockOwnerDeletion owner reference needs update
		// on the owner's finalizers, which the shipped RBAC must grant.
		"--enable-admission-plugins", "OwnerReferencesPermissionEnforcement",
		"--allow-privileged=true",
	}
}

// startAPIServer starts kube-apiserver and waits for /readyz.
func (e *Environment) startAPIServer(ctx context.Context) error {
	if err := e.apiserver.start(); err != nil {
		return err
	}
	return waitReadyz(ctx, e.apiserver, e.Config)
}

// waitReadyz polls the API server's /readyz through cfg until it answers
// 200, p exits, or ctx ends.
func waitReadyz(ctx context.Context, p *process, cfg *rest.Config) error {
	client, err := rest.HTTPClientFor(cfg)
	if err != nil {
		return fmt.Errorf("client for readyz: %w", err)
	}
	url := cfg.Host + "/readyz"
	return p.waitFor(ctx, "/readyz", func(ctx context.Context) error {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
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

// RestartAPIServer stops kube-apiserver and starts it again on the same
// port with the same data, as an upgrade or a crash would; clients keep
// their configuration and must recover their watches. The server gets
// SIGTERM and, if it is still draining long-running watches after five
// seconds, SIGKILL: either way clients see their connections cut.
func (e *Environment) RestartAPIServer(ctx context.Context, down time.Duration) error {
	e.apiserver.stop(5 * time.Second)
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-time.After(down):
	}
	return e.startAPIServer(ctx)
}

// AddCleanup registers f to run at the start of Stop, before the control
// plane goes away, in reverse order of registration: a package's TestMain
// uses it to stop what it started on top of the environment.
func (e *Environment) AddCleanup(f func()) { e.cleanups = append(e.cleanups, f) }

// Stop ends every process and removes the environment's directory. It is
// safe to call more than once.
func (e *Environment) Stop() {
	e.stopMu.Lock()
	defer e.stopMu.Unlock()
	for i := len(e.cleanups) - 1; i >= 0; i-- {
		e.cleanups[i]()
	}
	e.cleanups = nil
	if e.cnpg != nil {
		e.cnpg.stop()
	}
	for _, p := range []*process{e.controller, e.apiserver, e.etcd} {
		if p != nil {
			p.stop(5 * time.Second)
		}
	}
	if e.dir != "" {
		_ = os.RemoveAll(e.dir)
		e.dir = ""
	}
}

// Dir is the environment's scratch directory, removed by Stop.
func (e *Environment) Dir() string { return e.dir }

func (e *Environment) adminConfig() *rest.Config {
	return &rest.Config{
		Host:            "https://127.0.0.1:" + strconv.Itoa(e.apiPort),
		BearerToken:     e.pki.adminToken,
		TLSClientConfig: rest.TLSClientConfig{CAData: e.pki.caPEM},
		QPS:             1000,
		Burst:           2000,
	}
}

func (e *Environment) writeKubeconfig() (string, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["envtest"] = &clientcmdapi.Cluster{
		Server:                   e.Config.Host,
		CertificateAuthorityData: e.pki.caPEM,
	}
	cfg.AuthInfos["admin"] = &clientcmdapi.AuthInfo{Token: e.pki.adminToken}
	cfg.Contexts["envtest"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "admin"}
	cfg.CurrentContext = "envtest"
	path := filepath.Join(e.dir, "kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", fmt.Errorf("write kubeconfig: %w", err)
	}
	return path, nil
}
