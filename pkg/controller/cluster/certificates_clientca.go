package cluster

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/pki"
)

// clientCAValidity is the client CA's lifetime. It is replaced with a
// third left (pki.Expiring), by the same move as an upgrade's, so a long
// life costs nothing and leaves years for the move to finish.
const clientCAValidity = 5 * 365 * 24 * time.Hour

// replacedCATrustedUntil, on the client CA Secret, is when the CA it
// replaces stops being trusted: set once nothing holds a certificate
// that CA signed, the grace after it lets clients that read their
// certificate file only now and then pick up the re-issued one.
const replacedCATrustedUntil = "setpoint.dev/replaced-ca-trusted-until"

// clientCA is the client CA as this pass leaves it.
type clientCA struct {
	auth *pki.Authority
	// trusted is ca.crt: auth's certificate first, then any CA it
	// replaces that is still trusted.
	trusted []*x509.Certificate
	secret  *corev1.Secret
}

func (c *clientCA) renewAt() time.Time { return pki.RenewAt(c.auth.Cert) }

// ensureClientCA makes the client CA, or replaces it when it nears its
// end. A new CA on a cluster CNPG already runs also trusts the CA CNPG
// signed client certificates with until then (replacedByNewCA).
func ensureClientCA(ctx context.Context, p *pass, cached *corev1.Secret) (*clientCA, error) {
	name := naming.ClientCASecret(p.cluster.Name)
	cur, err := claim(ctx, p, "Secret", cached, p.deps.kube.CoreV1().Secrets(p.cluster.Namespace), name)
	if err != nil {
		return nil, err
	}
	now := p.deps.clock.Now()
	var trusted []*x509.Certificate
	if cur == nil {
		trusted, err = replacedByNewCA(p)
	} else {
		var ca *pki.Authority
		if ca, trusted, err = readClientCA(cur); err != nil {
			return nil, err
		}
		if !pki.Expiring(ca.Cert, now) {
			return &clientCA{auth: ca, trusted: trusted, secret: cur}, nil
		}
	}
	if err != nil {
		return nil, err
	}
	next, err := pki.NewAuthority(name, now, clientCAValidity)
	if err != nil {
		return nil, err
	}
	c := &clientCA{auth: next, trusted: append([]*x509.Certificate{next.Cert}, trusted...)}
	if c.secret, err = writeClientCA(ctx, p, cur, c, ""); err != nil {
		return nil, err
	}
	if len(c.trusted) > 1 {
		p.deps.recorder.Eventf(p.cluster, corev1.EventTypeNormal, pgv1.EventClientCAReplaced,
			"%s signs client certificates from now on; the CA it replaces stays trusted while CloudNativePG re-issues what it signed", name)
	}
	return c, nil
}

// readClientCA parses our client CA Secret. It is ours, so one that does
// not parse was edited by hand: refused, never silently replaced, since
// a new CA would lock out every certificate it signed.
func readClientCA(s *corev1.Secret) (*pki.Authority, []*x509.Certificate, error) {
	trusted, err := pki.ParseBundle(s.Data[naming.CACertKey])
	if err == nil {
		var ca *pki.Authority
		if ca, err = pki.ParseAuthority(s.Data[naming.CACertKey], s.Data[naming.CAKeyKey]); err == nil {
			return ca, trusted, nil
		}
	}
	return nil, nil, fmt.Errorf("client CA Secret %s is unreadable: %w (delete it and setpoint makes a new one; certificate logins fail until CloudNativePG re-issues them)", s.Name, err)
}

// replacedByNewCA is what a new client CA must keep trusting: on a
// Cluster CNPG runs with its default, the server CA also signed the
// client certificates, and those keep logging in until re-issued.
func replacedByNewCA(p *pass) ([]*x509.Certificate, error) {
	cl := p.obs.cnpg
	if cl == nil || len(p.obs.ca) == 0 {
		return nil, nil
	}
	if c := cl.Spec.Certificates; c != nil && c.ClientCASecret == naming.ClientCASecret(p.cluster.Name) {
		return nil, nil // ours already: it was deleted, nothing else signed for this cluster
	}
	old, err := pki.ParseBundle(p.obs.ca)
	if err != nil {
		return nil, errors.Join(errors.New("read CloudNativePG's CA certificate"), err)
	}
	return old, nil
}

// writeClientCA creates or updates the client CA Secret with c, and the
// time the replaced CA stays trusted until ("" while unknown or none).
func writeClientCA(ctx context.Context, p *pass, cur *corev1.Secret, c *clientCA, until string) (*corev1.Secret, error) {
	var ann map[string]string
	if until != "" {
		ann = map[string]string{replacedCATrustedUntil: until}
	}
	return writeOwnSecret(ctx, p, cur, ownSecret{
		name: naming.ClientCASecret(p.cluster.Name), typ: corev1.SecretTypeOpaque, reload: true, annotations: ann,
		data: map[string][]byte{naming.CACertKey: pki.Bundle(c.trusted...), naming.CAKeyKey: c.auth.KeyPEM},
	})
}
