package node

import (
	"fmt"
	"net"

	"github.com/setpoint-dev/setpoint/test/envtest"
)

// nodePKI is the control plane's files (as test/envtest makes them, with a
// serving certificate for every address the API server is reached by) and
// the node's own: kubelet's client certificate (system:node:<name> in
// system:nodes, as the Node authorizer and NodeRestriction want), kubelet's
// serving certificate, and the API server's client certificate for kubelet.
type nodePKI struct {
	*envtest.APIServerPKI
	nodeCert, nodeKey                   string
	kubeletCert, kubeletKey             string
	apiserverClientCert, apiserverClKey string
}

func newNodePKI(dir, nodeName string) (*nodePKI, error) {
	ips := []net.IP{net.ParseIP(nodeIP), net.ParseIP(apiServerIP), net.ParseIP("127.0.0.1")}
	dns := []string{"kubernetes", "kubernetes.default", "kubernetes.default.svc",
		"kubernetes.default.svc.cluster.local", "localhost"}
	cp, err := envtest.NewAPIServerPKI(dir, ips, dns)
	if err != nil {
		return nil, err
	}
	p := &nodePKI{APIServerPKI: cp}
	issue := []struct {
		file      string
		c         envtest.Cert
		cert, key *string
	}{
		{"node", envtest.Cert{CommonName: "system:node:" + nodeName,
			Organization: []string{"system:nodes"}, Client: true}, &p.nodeCert, &p.nodeKey},
		{"kubelet", envtest.Cert{CommonName: nodeName, DNSNames: []string{nodeName},
			IPs: []net.IP{net.ParseIP(nodeIP)}}, &p.kubeletCert, &p.kubeletKey},
		{"apiserver-kubelet-client", envtest.Cert{CommonName: "kube-apiserver-kubelet-client",
			Organization: []string{"system:masters"}, Client: true}, &p.apiserverClientCert, &p.apiserverClKey},
	}
	for _, i := range issue {
		if *i.cert, *i.key, err = cp.CA.Issue(i.file, i.c); err != nil {
			return nil, fmt.Errorf("node certificates: %w", err)
		}
	}
	return p, nil
}
