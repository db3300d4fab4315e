package cnpgsim

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// The client CA, as CNPG 1.30 treats it (cluster_pki.go,
// databaserole_pki.go): certificates.clientCASecret when the Cluster
// names one — read, never created; its ca.crt (a bundle is fine) is
// Postgres's ssl_ca_file, and its ca.key signs DatabaseRole certificates
// — otherwise the server CA, <cluster>-ca, does both.

// clientCASecretName is the Secret holding the Cluster's client CA.
func clientCASecretName(c *cnpgv1.Cluster) string {
	if cc := c.Spec.Certificates; cc != nil && cc.ClientCASecret != "" {
		return cc.ClientCASecret
	}
	return caSecretName(c.Name)
}

// clientCATrust is what Postgres verifies client certificates with: the
// named client CA's ca.crt, or the server's own CA. (A shared server
// trusts every Cluster's: backend.trust.) A named Secret that
// is missing stops the Cluster's reconcile, as CNPG's "missing specified
// client CA secret" does.
func (r *clusterRun) clientCATrust() ([]byte, error) {
	c := r.cluster
	cc := c.Spec.Certificates
	if cc == nil || cc.ClientCASecret == "" {
		return r.inst.backend.ca.certPEM, nil
	}
	s, err := r.s.secrets.Secrets(c.Namespace).Get(cc.ClientCASecret)
	if apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("missing specified client CA secret %s: %w", cc.ClientCASecret, err)
	}
	if err != nil {
		return nil, fmt.Errorf("get client CA secret: %w", err)
	}
	if len(s.Data[caCertKey]) == 0 {
		return nil, fmt.Errorf("missing %s secret data in %s", caCertKey, cc.ClientCASecret)
	}
	return s.Data[caCertKey], nil
}

// certificatesStatus is CNPG's status.certificates: the Secrets in use and
// their expirations. The server CA's comes from the server's own CA,
// which its Secret holds (a Secret written in this pass is not in the
// cache yet: reading it would write the status twice); the stand-in makes
// no server or replication certificate Secret of its own, so the others
// are those of the Secrets that exist.
func (r *clusterRun) certificatesStatus() *cnpgv1.CertificatesStatus {
	c := r.cluster
	st := &cnpgv1.CertificatesStatus{ServerCASecret: caSecretName(c.Name), ClientCASecret: clientCASecretName(c),
		ReplicationTLSSecret: c.Name + "-replication"}
	if cc := c.Spec.Certificates; cc != nil && cc.ReplicationTLSSecret != "" {
		st.ReplicationTLSSecret = cc.ReplicationTLSSecret
	}
	st.Expirations = r.s.certificateExpirations(c, st.ClientCASecret, st.ReplicationTLSSecret)
	st.Expirations[st.ServerCASecret] = cnpgTime(r.inst.backend.ca.cert.NotAfter)
	return st
}

// enqueueClientCADatabaseRoles is CNPG's CA Secret watch (a Secret with
// ca.crt and ca.key): when a Cluster's client CA changes, its
// DatabaseRoles' certificates are checked, and re-issued if it no longer
// signs them.
func (s *Simulator) enqueueClientCADatabaseRoles(secret *corev1.Secret) {
	clusters, err := s.clusters.Clusters(secret.Namespace).List(everything)
	if err != nil {
		return
	}
	for _, c := range clusters {
		if clientCASecretName(c) == secret.Name {
			s.enqueueDatabaseRoles(c.Namespace, func(r *cnpgv1.DatabaseRole) bool { return r.Spec.Cluster.Name == c.Name })
		}
	}
}
