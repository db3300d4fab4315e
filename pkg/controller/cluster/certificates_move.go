package cluster

import (
	"bytes"
	"context"
	"crypto/x509"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/pki"
)

// A move from one client CA to the next (a cluster an earlier setpoint
// made, whose client certificates the server CA signed; or a client CA
// near its end) never fails a certificate login:
//  1. trusting: ca.crt lists the CA that signs now, then the new one,
//     whose key waits under next.key. CNPG takes the Secret; Postgres
//     reloads ca.crt and trusts both; nothing is re-issued, since the CA
//     that signs is the same.
//  2. signing: once Postgres is seen to trust the new CA — its TLS
//     handshake lists it among the CAs it accepts — the new CA signs
//     (first in ca.crt, its key ca.key), and the replaced one follows it
//     re-dated to now (pki.Authority.Redated): Postgres, which verifies
//     at the present, still accepts what it signed; CNPG, which counts a
//     certificate as current when some CA of ca.crt verifies it at its
//     own NotBefore, does not, and re-issues every DatabaseRole's
//     certificate at once. Our replication certificate is re-signed in
//     the same pass. A client that picks up its new certificate is
//     trusted already: teaching Postgres before signing is what keeps
//     that first login from failing.
//  3. once nothing holds a certificate the replaced CA signed, it stays
//     trusted for the grace (--client-ca-grace), for clients that re-read
//     their certificate files only now and then;
//  4. then ca.crt holds the new CA alone, and once Postgres is seen to
//     have dropped the replaced CA too (its handshake lists ours alone),
//     a certificate signed with the replaced key — for an upgraded
//     cluster the server CA's, which every application could read — is
//     refused, and status says so: not before.
//
// Each step is read from the world (CNPG's status, Postgres's handshake,
// the certificates), never from time alone: a pooler's certificate,
// which CNPG re-signs only near its expiry, keeps step 3 open until then,
// and status says so.

// settleMove advances a move, if one is under way.
func settleMove(ctx context.Context, p *pass, ca *clientCA) error {
	st := &p.certificates
	st.trusted = len(ca.trusted)
	if st.trusted == 1 {
		if _, dropping := ca.secret.Annotations[replacedCADropped]; dropping {
			return confirmDrop(ctx, p, ca)
		}
		return nil
	}
	if ca.next != nil {
		return teachPostgres(ctx, p, ca)
	}
	waiting, err := stillOnReplacedCA(ctx, p, ca.auth.Cert)
	if err != nil {
		return err
	}
	if st.waiting = waiting; len(waiting) > 0 {
		return nil
	}
	now := p.deps.clock.Now()
	until, err := time.Parse(time.RFC3339, ca.secret.Annotations[replacedCATrustedUntil])
	if err != nil {
		until = now.Add(p.deps.clientCAGrace).Truncate(time.Second)
		ca.secret, err = writeClientCA(ctx, p, ca.secret, ca, map[string]string{replacedCATrustedUntil: until.UTC().Format(time.RFC3339)})
		st.moveEnds = until
		return err
	}
	if now.Before(until) {
		st.moveEnds = until
		return nil
	}
	ca.trusted = ca.trusted[:1]
	if ca.secret, err = writeClientCA(ctx, p, ca.secret, ca, map[string]string{replacedCADropped: now.UTC().Format(time.RFC3339)}); err != nil {
		return err
	}
	st.trusted, st.dropping = 1, true
	st.waiting = []string{"Postgres has not reloaded the client CA Secret yet"}
	return nil
}

// confirmDrop is the end of step 4: the Secret trusts our CA alone, and
// the move is over once Postgres does too. CNPG's instance manager
// reloads the Secret on its own, a moment after it changed; until then a
// certificate the replaced key signed still logs in, and a status saying
// otherwise would be a false promise to whoever retires that key.
func confirmDrop(ctx context.Context, p *pass, ca *clientCA) error {
	st := &p.certificates
	accepted, err := p.deps.acceptedClientCAs(ctx, p)
	if err != nil || slices.ContainsFunc(accepted, func(dn []byte) bool { return !bytes.Equal(dn, ca.auth.Cert.RawSubject) }) {
		why := "its TLS handshake still lists another CA among those it accepts"
		if err != nil {
			why = err.Error()
		}
		st.dropping = true
		st.waiting = []string{"Postgres still trusts the replaced client CA (" + why + ")"}
		return nil // polled, as in teachPostgres
	}
	var werr error
	if ca.secret, werr = writeClientCA(ctx, p, ca.secret, ca, nil); werr != nil {
		return werr
	}
	p.deps.recorder.Eventf(p.cluster, corev1.EventTypeNormal, pgv1.EventClientCAMoved,
		"only certificates %s signed log in now; the CA it replaced is no longer trusted", naming.ClientCASecret(p.cluster.Name))
	return nil
}

// redateSlack backdates the re-dated replaced CA for clocks a little
// behind ours. It stays after the NotBefore of every certificate CNPG
// signed before (CNPG backdates those by 5 minutes from their issue).
const redateSlack = 2 * time.Minute

// teachPostgres is step 1: it waits for CNPG to take the client CA
// Secret and for Postgres to trust the new CA, then lets it sign.
func teachPostgres(ctx context.Context, p *pass, ca *clientCA) error {
	st := &p.certificates
	if !cnpgTookOurs(p) {
		st.waiting = []string{"CloudNativePG has not taken the new client CA yet"}
		return nil
	}
	accepted, err := p.deps.acceptedClientCAs(ctx, p)
	if err != nil || !slices.ContainsFunc(accepted, func(dn []byte) bool { return bytes.Equal(dn, ca.next.Cert.RawSubject) }) {
		why := "it does not list it among the CAs it accepts yet"
		if err != nil {
			why = err.Error()
		}
		st.waiting = []string{"Postgres does not trust the new client CA yet (" + why + ")"}
		return nil // CNPG's instance manager reloads it on its own: polled
	}
	// The replaced CA stays in ca.crt re-dated (redateSlack before now):
	// Postgres, checking at the present, still accepts what it signed;
	// CNPG, checking a certificate at its own NotBefore, no longer counts
	// it as signed by a current CA, and re-issues it.
	replaced, err := ca.auth.Redated(p.deps.clock.Now().Add(-redateSlack))
	if err != nil {
		return err
	}
	promoted := &clientCA{auth: ca.next, trusted: []*x509.Certificate{ca.next.Cert, replaced}, secret: ca.secret}
	if promoted.secret, err = writeClientCA(ctx, p, ca.secret, promoted, nil); err != nil {
		return err
	}
	*ca = *promoted
	st.waiting = []string{"CloudNativePG re-issues the certificates the replaced CA signed"}
	p.deps.recorder.Eventf(p.cluster, corev1.EventTypeNormal, pgv1.EventClientCAReplaced,
		"%s signs client certificates from now on; the CA it replaces stays trusted while CloudNativePG re-issues what it signed",
		naming.ClientCASecret(p.cluster.Name))
	return nil
}

// cnpgTookOurs: CNPG's status names our client CA and replication
// certificate as the ones in use.
func cnpgTookOurs(p *pass) bool {
	if p.obs.cnpg == nil {
		return false
	}
	st := p.obs.cnpg.Status.Certificates
	return st != nil && st.ClientCASecret == naming.ClientCASecret(p.cluster.Name) &&
		st.ReplicationTLSSecret == naming.ReplicationTLSSecret(p.cluster.Name)
}

// stillOnReplacedCA names what still holds a client certificate that the
// current CA did not sign: CNPG before it takes the new CA, a
// DatabaseRole's certificate not yet re-issued, a pooler's. The
// certificates are CNPG's Secrets, which our cache does not hold: read
// during a move only.
func stillOnReplacedCA(ctx context.Context, p *pass, current *x509.Certificate) ([]string, error) {
	cl := p.obs.cnpg
	if cl == nil {
		return nil, nil
	}
	var waiting []string
	if !cnpgTookOurs(p) {
		waiting = append(waiting, "CloudNativePG has not taken the new client CA yet")
	}
	for _, role := range certificatesPart.of(p.obs).certRoles {
		held, err := heldCertificate(ctx, p, naming.ClientCertSecret(role), current)
		if err != nil {
			return nil, err
		}
		if held != nil {
			waiting = append(waiting, fmt.Sprintf("DatabaseRole %s's certificate", role))
		}
	}
	if pi := cl.Status.PoolerIntegrations; pi != nil {
		for _, secret := range pi.PgBouncerIntegration.Secrets {
			held, err := heldCertificate(ctx, p, secret, current)
			if err != nil {
				return nil, err
			}
			if held != nil {
				waiting = append(waiting, fmt.Sprintf("the poolers' certificate %s, which CloudNativePG re-signs only near its expiry (by %s)",
					secret, poolerRenewal(held).UTC().Format(time.RFC3339)))
			}
		}
	}
	return waiting, nil
}

// heldCertificate is the client certificate in Secret name when the
// current CA did not sign it, nil when it did or there is none.
func heldCertificate(ctx context.Context, p *pass, name string, current *x509.Certificate) (*x509.Certificate, error) {
	s, err := p.deps.kube.CoreV1().Secrets(p.cluster.Namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read certificate Secret %s: %w", name, err)
	}
	crt := s.Data[corev1.TLSCertKey]
	if pki.SignedBy(crt, current) {
		return nil, nil
	}
	leaf, err := pki.ParseBundle(crt)
	if err != nil {
		return nil, nil // no certificate in it: nothing to log in with
	}
	return leaf[0], nil
}

// cnpgRenewBefore is how long before expiry CNPG re-signs the leaves it
// keeps (its certs.IsExpiring).
const cnpgRenewBefore = 7 * 24 * time.Hour

func poolerRenewal(c *x509.Certificate) time.Time { return c.NotAfter.Add(-cnpgRenewBefore) }
