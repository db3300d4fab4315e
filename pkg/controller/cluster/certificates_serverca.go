package cluster

import (
	"bytes"
	"context"

	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// ensureServerCACopy keeps <cluster>-server-ca holding ca.crt of CNPG's
// server CA and nothing else: what applications verify the server with,
// without the key that signs server certificates. It follows CNPG's
// renewal of that CA (the snapshot re-reads it when CNPG reports a new
// expiration). Until CNPG has made its CA there is nothing to copy.
func ensureServerCACopy(ctx context.Context, p *pass, cached *corev1.Secret) error {
	ca := p.obs.ca
	if len(ca) == 0 {
		p.certificates.serverCAPending = true
		return nil
	}
	name := naming.ServerCASecret(p.cluster.Name)
	cur, err := claim(ctx, p, "Secret", cached, p.deps.kube.CoreV1().Secrets(p.cluster.Namespace), name)
	if err != nil {
		return err
	}
	if cur != nil && len(cur.Data) == 1 && bytes.Equal(cur.Data[naming.CACertKey], ca) {
		return nil
	}
	_, err = writeOwnSecret(ctx, p, cur, ownSecret{
		name: name, typ: corev1.SecretTypeOpaque, data: map[string][]byte{naming.CACertKey: ca},
	})
	return err
}
