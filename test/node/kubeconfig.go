package node

import (
	"fmt"
	"path/filepath"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
)

// writeKubeconfig writes a kubeconfig for server into dir/file, with a
// bearer token or else a client certificate.
func writeKubeconfig(dir, file, server string, caPEM []byte, token, certFile, keyFile string) (string, error) {
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["node"] = &clientcmdapi.Cluster{Server: server, CertificateAuthorityData: caPEM}
	cfg.AuthInfos["user"] = &clientcmdapi.AuthInfo{Token: token, ClientCertificate: certFile, ClientKey: keyFile}
	cfg.Contexts["node"] = &clientcmdapi.Context{Cluster: "node", AuthInfo: "user"}
	cfg.CurrentContext = "node"
	path := filepath.Join(dir, file)
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		return "", fmt.Errorf("write kubeconfig %s: %w", file, err)
	}
	return path, nil
}
