package node

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"sigs.k8s.io/yaml"
)

// These tests need no root and no binaries: they check what the node
// writes for kubelet, kube-proxy and the CNI plugins parses as meant.

func readYAML(t *testing.T, path string) map[string]any {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := yaml.Unmarshal(data, &m); err != nil {
		t.Fatalf("%s is not YAML: %v\n%s", path, err, data)
	}
	return m
}

func testNode(t *testing.T) *Node {
	t.Helper()
	dir := t.TempDir()
	pki, err := newNodePKI(dir, "setpoint-node")
	if err != nil {
		t.Fatal(err)
	}
	return &Node{Name: "setpoint-node", dir: dir, pki: pki, innerKubeconfig: filepath.Join(dir, "kubeconfig-inner"),
		cgroups: &cgroups{root: "/setpoint-node-1"}, containerd: newContainerd(dir, defaultSandboxImage)}
}

func TestKubeletConfig(t *testing.T) {
	n := testNode(t)
	args, err := n.kubeletArgs(filepath.Join(n.dir, "kubeconfig-node"))
	if err != nil {
		t.Fatal(err)
	}
	if args[0] != "--config" {
		t.Fatalf("args = %v, want --config first", args)
	}
	cfg := readYAML(t, args[1])
	want := map[string]any{
		"failCgroupV1":          false,
		"cgroupDriver":          "cgroupfs",
		"cgroupRoot":            "/setpoint-node-1",
		"protectKernelDefaults": false,
		"failSwapOn":            false,
		"address":               nodeIP,
	}
	for k, v := range want {
		if cfg[k] != v {
			t.Errorf("%s = %v, want %v", k, cfg[k], v)
		}
	}
	eviction, _ := cfg["evictionHard"].(map[string]any)
	if eviction["nodefs.available"] != "1%" {
		t.Errorf("evictionHard = %v, want nodefs.available 1%%", eviction)
	}
	if dns, _ := cfg["clusterDNS"].([]any); len(dns) != 1 || dns[0] != dnsIP {
		t.Errorf("clusterDNS = %v, want [%s]", cfg["clusterDNS"], dnsIP)
	}
	if got := cfg["containerRuntimeEndpoint"]; got != "unix://"+n.containerd.socket {
		t.Errorf("containerRuntimeEndpoint = %v", got)
	}
}

func TestProxyConfig(t *testing.T) {
	n := testNode(t)
	args, err := n.proxyArgs()
	if err != nil {
		t.Fatal(err)
	}
	cfg := readYAML(t, args[1])
	if cfg["mode"] != "iptables" || cfg["hostnameOverride"] != n.Name {
		t.Errorf("mode, hostnameOverride = %v, %v", cfg["mode"], cfg["hostnameOverride"])
	}
	conntrack, _ := cfg["conntrack"].(map[string]any)
	if conntrack["maxPerCore"] != float64(0) {
		t.Errorf("conntrack = %v, want maxPerCore 0 (the table size is host-global)", conntrack)
	}
}

func TestCNIConflist(t *testing.T) {
	dir := t.TempDir()
	confDir, err := writeCNIConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(confDir, "10-setpoint-node.conflist"))
	if err != nil {
		t.Fatal(err)
	}
	var conf struct {
		Name    string `json:"name"`
		Plugins []struct {
			Type   string `json:"type"`
			Bridge string `json:"bridge"`
			IPMasq bool   `json:"ipMasq"`
			IPAM   struct {
				DataDir string `json:"dataDir"`
			} `json:"ipam"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal(data, &conf); err != nil {
		t.Fatalf("conflist is not JSON: %v\n%s", err, data)
	}
	if conf.Name != cniNetwork || len(conf.Plugins) == 0 || conf.Plugins[0].Bridge != "cni0" || conf.Plugins[0].IPMasq {
		t.Fatalf("conflist = %+v", conf)
	}
	if got := conf.Plugins[0].IPAM.DataDir; got != filepath.Join(dir, "cni", "networks") {
		t.Errorf("IPAM dataDir = %s, want it under the state dir", got)
	}
}

func TestRemoveLinksIntoKeepsOthers(t *testing.T) {
	links, state := t.TempDir(), t.TempDir()
	ours, theirs := filepath.Join(links, "ours.log"), filepath.Join(links, "theirs.log")
	if err := os.Symlink(filepath.Join(state, "pod-logs", "0.log"), ours); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("/var/log/pods/x/0.log", theirs); err != nil {
		t.Fatal(err)
	}
	if err := removeLinksInto(links, state); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(ours); !os.IsNotExist(err) {
		t.Errorf("link into the state dir still there: %v", err)
	}
	if _, err := os.Lstat(theirs); err != nil {
		t.Errorf("another link was removed: %v", err)
	}
}

func TestDigestRef(t *testing.T) {
	for ref, want := range map[string]string{
		"ghcr.io/setpoint-dev/setpoint:v1.2.3": "ghcr.io/setpoint-dev/setpoint@sha256:ab",
		"localhost:5000/pause:1":               "localhost:5000/pause@sha256:ab",
		"localhost:5000/pause":                 "localhost:5000/pause@sha256:ab",
	} {
		if got := digestRef(ref, "sha256:ab"); got != want {
			t.Errorf("digestRef(%q) = %q, want %q", ref, got, want)
		}
	}
}
