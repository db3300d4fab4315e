package node

import (
	"fmt"
	"os"
	"path/filepath"
)

// cniConflist puts Pods on a cni0 bridge inside the node's namespace, with
// addresses from host-local IPAM whose state stays in the node's directory.
// No masquerading: there is nowhere outside to go.
const cniConflist = `{
  "cniVersion": "1.0.0",
  "name": %q,
  "plugins": [
    {
      "type": "bridge",
      "bridge": "cni0",
      "isGateway": true,
      "ipMasq": false,
      "hairpinMode": true,
      "ipam": {
        "type": "host-local",
        "dataDir": %q,
        "ranges": [[{"subnet": %q}]],
        "routes": [{"dst": "0.0.0.0/0"}]
      }
    },
    {"type": "portmap", "capabilities": {"portMappings": true}}
  ]
}
`

// cniNetwork names the node's CNI network; libcni names its cached
// results after it.
const cniNetwork = "setpoint-node"

// writeCNIConfig writes the conflist into stateDir/cni/net.d and returns
// that directory.
func writeCNIConfig(stateDir string) (string, error) {
	dir := filepath.Join(stateDir, "cni", "net.d")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("cni config dir: %w", err)
	}
	data := fmt.Sprintf(cniConflist, cniNetwork, filepath.Join(stateDir, "cni", "networks"), podCIDR)
	if err := os.WriteFile(filepath.Join(dir, "10-setpoint-node.conflist"), []byte(data), 0o600); err != nil {
		return "", fmt.Errorf("write cni config: %w", err)
	}
	return dir, nil
}
