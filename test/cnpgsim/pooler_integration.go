package cnpgsim

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// CNPG's pooler integration (its cluster_status.go and cluster_create.go
// reconcilePoolerSecrets): for the Poolers whose auth query CNPG handles
// (all of setpoint's: they set no authQuery), the Cluster lists
// <cluster>-pooler in status.poolerIntegrations, and CNPG keeps in that
// Secret the client certificate PgBouncer logs in to Postgres with, as
// cnpg_pooler_pgbouncer, signed by the client CA — and re-signed only
// when it nears its expiry, never on a CA change.

const poolerUser = "cnpg_pooler_pgbouncer"

// poolerSecretName is the Secret CNPG keeps the poolers' certificate in.
func poolerSecretName(cluster string) string { return cluster + "-pooler" }

// poolerIntegrations is status.poolerIntegrations: with no Secret while
// the Cluster has no Pooler.
func (s *Simulator) poolerIntegrations(c *cnpgv1.Cluster) (*cnpgv1.PoolerIntegrations, error) {
	poolers, err := s.poolers.Poolers(c.Namespace).List(everything)
	if err != nil {
		return nil, fmt.Errorf("list poolers: %w", err)
	}
	for _, p := range poolers {
		if p.Spec.Cluster.Name == c.Name && p.DeletionTimestamp == nil {
			return &cnpgv1.PoolerIntegrations{PgBouncerIntegration: cnpgv1.PgBouncerIntegrationStatus{
				Secrets: []string{poolerSecretName(c.Name)}}}, nil
		}
	}
	// CNPG's getPoolerIntegrationsNeeded: an empty integration, never none
	// (real CNPG's record in test/parity shows {"pgBouncerIntegration": {}}).
	return &cnpgv1.PoolerIntegrations{}, nil
}

// ensurePoolerSecret makes the poolers' certificate when the Cluster has a
// Pooler and the Secret is missing, signed by the client CA; one that
// exists is left as it is (CNPG renews it only near its expiry, which no
// test waits for).
func (s *Simulator) ensurePoolerSecret(ctx context.Context, c *cnpgv1.Cluster) error {
	pi, err := s.poolerIntegrations(c)
	if err != nil || len(pi.PgBouncerIntegration.Secrets) == 0 {
		return err
	}
	name := poolerSecretName(c.Name)
	if _, err := s.secrets.Secrets(c.Namespace).Get(name); err == nil {
		return nil
	}
	caSecret, err := s.secrets.Secrets(c.Namespace).Get(clientCASecretName(c))
	if apierrors.IsNotFound(err) {
		return nil // the Cluster's reconcile reports a missing client CA
	}
	if err != nil {
		return fmt.Errorf("get client CA secret: %w", err)
	}
	ca, err := parseAuthority(caSecret.Data[caCertKey], caSecret.Data[caKeyKey])
	if err != nil {
		return err
	}
	certPEM, keyPEM, _, err := ca.issueClient(poolerUser)
	if err != nil {
		return err
	}
	secret := &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: c.Namespace, OwnerReferences: ownedBy(c),
			Labels: map[string]string{clusterLabel: c.Name, "cnpg.io/reload": "true"}},
		Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM},
	}
	if _, err := s.kube.CoreV1().Secrets(c.Namespace).Create(ctx, secret, metav1.CreateOptions{FieldManager: s.opts.FieldManager}); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("create pooler secret: %w", err)
	}
	return nil
}

// cnpgTime is a time as CNPG writes it into status (Go's
// time.Time.String, in UTC).
func cnpgTime(t time.Time) string { return t.UTC().String() }

// certificateExpirations is status.certificates.expirations: each
// certificate Secret in use and when its certificate ends, written as
// CNPG writes it (Go's time.Time.String).
func (s *Simulator) certificateExpirations(c *cnpgv1.Cluster, names ...string) map[string]string {
	out := map[string]string{}
	for _, name := range names {
		sec, err := s.secrets.Secrets(c.Namespace).Get(name)
		if err != nil {
			continue
		}
		crt := sec.Data[caCertKey]
		if tls, ok := sec.Data[corev1.TLSCertKey]; ok {
			crt = tls
		}
		if leaf, err := firstCertificate(crt); err == nil {
			out[name] = cnpgTime(leaf.NotAfter)
		}
	}
	return out
}
