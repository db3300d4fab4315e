package cluster

import (
	"bytes"
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/pki"
)

// replicationLeafValidity is the replication certificate's lifetime,
// CNPG's own for the leaves it signs; it is re-signed with a third left.
const replicationLeafValidity = 90 * 24 * time.Hour

// streamingReplica is the role standbys log in as (CNPG's).
const streamingReplica = "streaming_replica"

// ensureReplicationCert keeps streaming_replica's client certificate
// signed by the client CA as it is now. CNPG re-signs its own replication
// certificate only near expiry, so one of CNPG's would hold the CA it
// replaces trusted for months; ours follows a new CA in the same pass.
// It returns when the certificate is next re-signed.
func ensureReplicationCert(ctx context.Context, p *pass, cached *corev1.Secret, ca *clientCA) (time.Time, error) {
	name := naming.ReplicationTLSSecret(p.cluster.Name)
	cur, err := claim(ctx, p, "Secret", cached, p.deps.kube.CoreV1().Secrets(p.cluster.Namespace), name)
	if err != nil {
		return time.Time{}, err
	}
	now := p.deps.clock.Now()
	if cur != nil && pki.SignedBy(cur.Data[corev1.TLSCertKey], ca.auth.Cert) {
		if leaf, err := pki.ParseBundle(cur.Data[corev1.TLSCertKey]); err == nil && !pki.Expiring(leaf[0], now) &&
			bytes.Equal(cur.Data[naming.CACertKey], ca.auth.CertPEM) {
			return pki.RenewAt(leaf[0]), nil
		}
	}
	certPEM, keyPEM, err := ca.auth.IssueClient(streamingReplica, now, replicationLeafValidity)
	if err != nil {
		return time.Time{}, err
	}
	_, err = writeOwnSecret(ctx, p, cur, ownSecret{
		name: name, typ: corev1.SecretTypeTLS, reload: true,
		data: map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM, naming.CACertKey: ca.auth.CertPEM},
	})
	if err != nil {
		return time.Time{}, err
	}
	leaf, err := pki.ParseBundle(certPEM)
	if err != nil {
		return time.Time{}, err
	}
	return pki.RenewAt(leaf[0]), nil
}
