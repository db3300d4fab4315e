package cluster

import (
	"context"
	"crypto/x509"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/pki"
)

// clientCAValidity is the client CA's lifetime. It is replaced with a
// third left (pki.Expiring), by the same move as an upgrade's, so a long
// life costs nothing and leaves years for the move to finish.
const clientCAValidity = 5 * 365 * 24 * time.Hour

// nextKeyKey holds, while Postgres is being taught to trust a new client
// CA, that CA's key: it signs nothing until Postgres trusts it
// (certificates_move.go).
const nextKeyKey = "next.key"

// replacedCATrustedUntil, on the client CA Secret, is when the CA it
// replaces stops being trusted: set once nothing holds a certificate
// that CA signed, the grace after it lets clients that read their
// certificate file only now and then pick up the re-issued one.
const replacedCATrustedUntil = "setpoint.dev/replaced-ca-trusted-until"

// replacedCADropped, on the client CA Secret, is when ca.crt last lost the
// CA it replaced: kept until Postgres is seen to trust ours alone
// (confirmDrop), so a restarted operator still checks.
const replacedCADropped = "setpoint.dev/replaced-ca-dropped"

// clientCA is the client CA Secret as this pass leaves it. CNPG signs
// with ca.key and the first certificate of ca.crt; Postgres trusts every
// certificate of ca.crt.
type clientCA struct {
	// auth signs now.
	auth *pki.Authority
	// trusted is ca.crt: auth's certificate first.
	trusted []*x509.Certificate
	// next is the CA that will sign once Postgres trusts it (its
	// certificate is in trusted already); nil when none waits.
	next   *pki.Authority
	secret *corev1.Secret
}

func (c *clientCA) renewAt() time.Time { return pki.RenewAt(c.auth.Cert) }

// ensureClientCA makes the client CA, or begins its replacement when it
// nears its end. On a cluster CNPG already runs with its default, the
// server CA signed the client certificates: it keeps signing until
// Postgres also trusts the new CA (certificates_move.go).
func ensureClientCA(ctx context.Context, p *pass, cached *corev1.Secret) (*clientCA, error) {
	name := naming.ClientCASecret(p.cluster.Name)
	cur, err := claim(ctx, p, "Secret", cached, p.deps.kube.CoreV1().Secrets(p.cluster.Namespace), name)
	if err != nil {
		return nil, err
	}
	now := p.deps.clock.Now()
	var signing *pki.Authority
	var ann map[string]string
	if cur == nil {
		if signing, err = signingBeforeUs(ctx, p); err != nil {
			return nil, err
		}
	} else {
		c, err := readClientCA(cur)
		// One move at a time: a request made during a move waits for it,
		// until Postgres has dropped the replaced CA too.
		if _, dropping := cur.Annotations[replacedCADropped]; err != nil || c.next != nil || len(c.trusted) > 1 || dropping {
			return c, err
		}
		request := rotationAsked(p, cur)
		if request == "" && !pki.Expiring(c.auth.Cert, now) {
			return c, nil
		}
		if request != "" {
			ann = map[string]string{pgv1.ClientCARotatedForAnnotation: request}
			p.deps.recorder.Eventf(p.cluster, corev1.EventTypeNormal, pgv1.EventClientCARotating,
				"rotating the client CA for request %q", request)
		}
		signing = c.auth
	}
	fresh, err := pki.NewAuthority(name, now, clientCAValidity)
	if err != nil {
		return nil, err
	}
	c := &clientCA{auth: fresh, trusted: []*x509.Certificate{fresh.Cert}}
	if signing != nil {
		c = &clientCA{auth: signing, trusted: []*x509.Certificate{signing.Cert, fresh.Cert}, next: fresh}
	}
	if c.secret, err = writeClientCA(ctx, p, cur, c, ann); err != nil {
		return nil, err
	}
	return c, nil
}

// rotationAsked is the rotate-client-ca request on the PostgresCluster
// that the client CA Secret has not answered yet, or "".
func rotationAsked(p *pass, cur *corev1.Secret) string {
	request := p.cluster.Annotations[pgv1.RotateClientCAAnnotation]
	if request == "" || cur.Annotations[pgv1.ClientCARotatedForAnnotation] == request {
		return ""
	}
	return request
}

// readClientCA parses our client CA Secret. It is ours, so one that does
// not parse was edited by hand: refused, never silently replaced, since
// a new CA would lock out every certificate it signed.
func readClientCA(s *corev1.Secret) (*clientCA, error) {
	bad := func(err error) error {
		return fmt.Errorf("client CA Secret %s is unreadable: %w (delete it and setpoint makes a new one; certificate logins fail until CloudNativePG re-issues them)", s.Name, err)
	}
	trusted, err := pki.ParseBundle(s.Data[naming.CACertKey])
	if err != nil {
		return nil, bad(err)
	}
	auth, err := pki.ParseAuthority(s.Data[naming.CACertKey], s.Data[naming.CAKeyKey])
	if err != nil {
		return nil, bad(err)
	}
	c := &clientCA{auth: auth, trusted: trusted, secret: s}
	if key, ok := s.Data[nextKeyKey]; ok {
		if len(trusted) < 2 {
			return nil, bad(fmt.Errorf("%s without a second certificate", nextKeyKey))
		}
		if c.next, err = pki.ParseAuthority(pki.Bundle(trusted[1]), key); err != nil {
			return nil, bad(err)
		}
	}
	return c, nil
}

// signingBeforeUs is the CA that signs client certificates on a Cluster
// CNPG already runs without our client CA: its default, the server CA
// (<cluster>-ca, with its key). nil for a new Cluster, or one that names
// ours already (then ours was deleted: nothing else signed for it).
func signingBeforeUs(ctx context.Context, p *pass) (*pki.Authority, error) {
	cl := p.obs.cnpg
	if cl == nil {
		return nil, nil
	}
	if c := cl.Spec.Certificates; c != nil && c.ClientCASecret == naming.ClientCASecret(p.cluster.Name) {
		return nil, nil
	}
	// CNPG's Secret, not ours and not cached: read once, when our client
	// CA is made, and only read.
	s, err := p.deps.kube.CoreV1().Secrets(p.cluster.Namespace).Get(ctx, naming.CASecret(p.cluster.Name), metav1.GetOptions{})
	if err != nil {
		return nil, fmt.Errorf("read CloudNativePG's CA %s, which signs client certificates until the client CA does: %w", naming.CASecret(p.cluster.Name), err)
	}
	ca, err := pki.ParseAuthority(s.Data[naming.CACertKey], s.Data[naming.CAKeyKey])
	if err != nil {
		return nil, fmt.Errorf("read CloudNativePG's CA %s: %w", s.Name, err)
	}
	return ca, nil
}

// writeClientCA creates or updates the client CA Secret with c and ann:
// the time the replaced CA stays trusted until (none while unknown), the
// rotation request answered (kept once written).
func writeClientCA(ctx context.Context, p *pass, cur *corev1.Secret, c *clientCA, ann map[string]string) (*corev1.Secret, error) {
	data := map[string][]byte{naming.CACertKey: pki.Bundle(c.trusted...), naming.CAKeyKey: c.auth.KeyPEM}
	if c.next != nil {
		data[nextKeyKey] = c.next.KeyPEM
	}
	return writeOwnSecret(ctx, p, cur, ownSecret{
		name: naming.ClientCASecret(p.cluster.Name), typ: corev1.SecretTypeOpaque, reload: true, annotations: ann, data: data,
		drop: []string{replacedCATrustedUntil, replacedCADropped}, // unless ann sets them again
	})
}
