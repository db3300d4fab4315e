package pki

import (
	"bytes"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"time"
)

// ParseBundle reads every certificate of a PEM bundle, in order. A CA
// Secret's ca.crt is such a bundle while a CA is being replaced: the CA
// that signs now first (CNPG signs with the first), then those still
// trusted.
func ParseBundle(bundle []byte) ([]*x509.Certificate, error) {
	var out []*x509.Certificate
	rest := bundle
	for {
		var b *pem.Block
		b, rest = pem.Decode(rest)
		if b == nil {
			break
		}
		if b.Type != certBlock {
			continue
		}
		c, err := x509.ParseCertificate(b.Bytes)
		if err != nil {
			return nil, fmt.Errorf("parse certificate: %w", err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, errors.New("no certificate in PEM data")
	}
	return out, nil
}

// Bundle joins certificates into one PEM bundle, in order, leaving out
// repeats (the same certificate twice is trusted once).
func Bundle(certs ...*x509.Certificate) []byte {
	var buf bytes.Buffer
	for i, c := range certs {
		dup := false
		for _, prev := range certs[:i] {
			dup = dup || prev.Equal(c)
		}
		if !dup {
			buf.Write(encodeCert(c.Raw))
		}
	}
	return buf.Bytes()
}

// SignedBy reports whether the leaf in certPEM is a client certificate
// ca signed. It checks at the leaf's own NotBefore, as CNPG does when it
// decides whether a CA rotation needs a new certificate: expiry is a
// separate question (Expiring).
func SignedBy(certPEM []byte, ca *x509.Certificate) bool {
	leaves, err := ParseBundle(certPEM)
	if err != nil {
		return false
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	_, err = leaves[0].Verify(x509.VerifyOptions{
		Roots: roots, CurrentTime: leaves[0].NotBefore,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	})
	return err == nil
}

// Expiring reports whether c has less than a third of its lifetime left
// at now: the point at which setpoint replaces what it issued, leaving
// the rest for a move to finish.
func Expiring(c *x509.Certificate, now time.Time) bool {
	life := c.NotAfter.Sub(c.NotBefore)
	return c.NotAfter.Sub(now) < life/3
}

// RenewAt is when Expiring turns true for c.
func RenewAt(c *x509.Certificate) time.Time {
	life := c.NotAfter.Sub(c.NotBefore)
	return c.NotAfter.Add(-life / 3)
}
