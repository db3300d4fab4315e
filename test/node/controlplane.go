package node

import (
	"context"
	"path/filepath"

	"github.com/setpoint-dev/setpoint/test/envtest"
)

// Inside the namespace the loopback is the node's own, so the control
// plane listens on fixed ports without clashing with anything on the host.
const (
	etcdURL       = "http://127.0.0.1:2379"
	apiServerPort = "6443"
	innerAPIURL   = "https://" + nodeIP + ":" + apiServerPort
)

// inNetns prepares binDir/name to run in the node's network namespace.
func (n *Node) inNetns(name string, args ...string) *envtest.Process {
	path, argv := n.ns.nsenter(filepath.Join(n.binDir, name), args...)
	return envtest.NewProcess(name, path, n.dir, argv...)
}

// startControlPlane runs etcd, kube-apiserver (waiting for /readyz),
// kube-controller-manager with its default controllers and kube-scheduler.
func (n *Node) startControlPlane(ctx context.Context) error {
	etcd := n.inNetns("etcd",
		"--data-dir", filepath.Join(n.dir, "etcd"),
		"--listen-client-urls", etcdURL,
		"--advertise-client-urls", etcdURL,
		"--listen-peer-urls", "http://127.0.0.1:2380",
		"--unsafe-no-fsync",
		"--log-level", "warn",
	)
	if err := n.run(etcd); err != nil {
		return err
	}
	apiserver := n.inNetns("kube-apiserver", n.apiserverArgs()...)
	if err := n.run(apiserver); err != nil {
		return err
	}
	if err := envtest.WaitReadyz(ctx, apiserver, n.Config); err != nil {
		return err
	}
	kcm := n.inNetns("kube-controller-manager",
		"--kubeconfig", n.innerKubeconfig,
		"--leader-elect=false",
		"--service-account-private-key-file", n.pki.SAKeyFile,
		"--root-ca-file", n.pki.CA.File,
		"--use-service-account-credentials=true",
		"--flex-volume-plugin-dir", filepath.Join(n.dir, "kcm-volume-plugins"),
	)
	scheduler := n.inNetns("kube-scheduler",
		"--kubeconfig", n.innerKubeconfig,
		"--leader-elect=false",
		"--bind-address", "127.0.0.1",
	)
	for _, p := range []*envtest.Process{kcm, scheduler} {
		if err := n.run(p); err != nil {
			return err
		}
	}
	return nil
}

func (n *Node) apiserverArgs() []string {
	return []string{
		"--etcd-servers", etcdURL,
		"--bind-address", "0.0.0.0", // inside the namespace: its loopback and the node's IP
		"--advertise-address", nodeIP,
		"--secure-port", apiServerPort,
		"--cert-dir", filepath.Join(n.dir, "apiserver-certs"),
		"--tls-cert-file", n.pki.CertFile,
		"--tls-private-key-file", n.pki.KeyFile,
		"--client-ca-file", n.pki.CA.File,
		"--token-auth-file", n.pki.TokenFile,
		"--authorization-mode", "Node,RBAC",
		"--enable-admission-plugins", "NodeRestriction",
		"--service-account-issuer", "https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file", n.pki.SAPubFile,
		"--service-account-signing-key-file", n.pki.SAKeyFile,
		"--service-cluster-ip-range", serviceCIDR,
		"--kubelet-client-certificate", n.pki.apiserverClientCert,
		"--kubelet-client-key", n.pki.apiserverClKey,
		"--kubelet-certificate-authority", n.pki.CA.File,
		// Else it asks the host's resolver for the node's name.
		"--kubelet-preferred-address-types", "InternalIP",
		// Webhook Services are then reached by endpoint IP, not through kube-proxy.
		"--enable-aggregator-routing=true",
		"--allow-privileged=true",
	}
}
