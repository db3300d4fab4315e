package node

import (
	"fmt"
	"os"
	"path/filepath"
)

// kubeletConfig is kubelet 1.37's configuration for this machine: cgroup
// v1 (failCgroupV1 off, cgroupfs, a cgroup root of its own), no swap
// check, no DNS from the host (an empty resolv.conf), eviction and image
// GC thresholds that small disks and a busy machine never trip, and every
// path it writes under the node's directory.
const kubeletConfig = `apiVersion: kubelet.config.k8s.io/v1beta1
kind: KubeletConfiguration
failCgroupV1: false
cgroupDriver: cgroupfs
cgroupRoot: %[1]q
cgroupsPerQOS: true
containerRuntimeEndpoint: unix://%[2]s
address: %[3]q
port: 10250
readOnlyPort: 0
healthzBindAddress: 127.0.0.1
healthzPort: 10248
tlsCertFile: %[4]q
tlsPrivateKeyFile: %[5]q
authentication:
  anonymous:
    enabled: false
  webhook:
    enabled: true
  x509:
    clientCAFile: %[6]q
authorization:
  mode: Webhook
resolvConf: %[7]q
clusterDNS: [%[8]q]
clusterDomain: cluster.local
failSwapOn: false
protectKernelDefaults: false
maxPods: 60
evictionHard:
  memory.available: "50Mi"
  nodefs.available: "1%%"
  nodefs.inodesFree: "1%%"
  imagefs.available: "1%%"
imageGCHighThresholdPercent: 100
imageGCLowThresholdPercent: 99
podLogsDir: %[9]q
volumePluginDir: %[10]q
registerNode: true
rotateCertificates: false
serverTLSBootstrap: false
`

// kubeletArgs writes kubelet's configuration and an empty resolv.conf and
// returns its command line.
func (n *Node) kubeletArgs(nodeKubeconfig string) ([]string, error) {
	dir := filepath.Join(n.dir, "kubelet")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("kubelet dir: %w", err)
	}
	resolv := filepath.Join(dir, "resolv.conf")
	if err := os.WriteFile(resolv, nil, 0o644); err != nil {
		return nil, fmt.Errorf("write resolv.conf: %w", err)
	}
	cfg := fmt.Sprintf(kubeletConfig, n.cgroups.root, n.containerd.socket, nodeIP,
		n.pki.kubeletCert, n.pki.kubeletKey, n.pki.CA.File, resolv, dnsIP,
		filepath.Join(n.dir, "pod-logs"), filepath.Join(dir, "volume-plugins"))
	path := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(path, []byte(cfg), 0o600); err != nil {
		return nil, fmt.Errorf("write kubelet config: %w", err)
	}
	return []string{
		"--config", path,
		"--kubeconfig", nodeKubeconfig,
		"--root-dir", filepath.Join(dir, "root"),
		"--hostname-override", n.Name,
		"--node-ip", nodeIP,
		"--v", "1",
	}, nil
}
