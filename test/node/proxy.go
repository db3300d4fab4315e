package node

import (
	"fmt"
	"os"
	"path/filepath"
)

// proxyConfig is kube-proxy's configuration: iptables mode (the rules live
// in the node's namespace), and no conntrack tuning, whose table size is
// host-global (maxPerCore 0 and zero timeouts leave the kernel's values).
const proxyConfig = `apiVersion: kubeproxy.config.k8s.io/v1alpha1
kind: KubeProxyConfiguration
clientConnection:
  kubeconfig: %[1]q
mode: iptables
hostnameOverride: %[2]q
clusterCIDR: %[3]q
healthzBindAddress: 127.0.0.1:10256
metricsBindAddress: 127.0.0.1:10249
conntrack:
  maxPerCore: 0
  min: 0
  tcpEstablishedTimeout: 0s
  tcpCloseWaitTimeout: 0s
  udpTimeout: 0s
  udpStreamTimeout: 0s
`

// proxyArgs writes kube-proxy's configuration and returns its command line.
func (n *Node) proxyArgs() ([]string, error) {
	path := filepath.Join(n.dir, "kube-proxy.yaml")
	cfg := fmt.Sprintf(proxyConfig, n.innerKubeconfig, n.Name, podCIDR)
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		return nil, fmt.Errorf("write kube-proxy config: %w", err)
	}
	return []string{"--config", path}, nil
}
