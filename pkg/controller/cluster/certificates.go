package cluster

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/labels"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// certificatesComponent keeps the keys that decide who may log in with a
// certificate apart from anything an application reads:
//   - <cluster>-client-ca: the client CA setpoint makes and renews. CNPG
//     signs every client certificate with it (the Cluster's
//     certificates.clientCASecret), and Postgres trusts no other. No
//     application is pointed at it.
//   - <cluster>-replication-tls: streaming_replica's certificate, which
//     setpoint signs with that CA, so replication follows a new CA at once.
//   - <cluster>-server-ca: ca.crt of CNPG's server CA alone, the Secret the
//     connection ConfigMaps name. CNPG's <cluster>-ca also holds the key.
//
// Before this component, CNPG's default signed client certificates with
// the server CA, whose Secret every application was pointed at: anyone
// who could read it could mint a login for any certificate role. A
// cluster an earlier setpoint made moves to its own client CA without a
// failed certificate login (certificates_move.go).
type certificatesComponent struct{}

// certSecrets are the component's Secrets as the snapshot found them,
// and, during a move only, the DatabaseRoles of the cluster that ask CNPG
// for a certificate.
type certSecrets struct {
	clientCA, replication, serverCA *corev1.Secret
	certRoles                       []string
}

var certificatesPart = part[certSecrets]{"certificates"}

// certificatesState is what the component keeps between its Reconcile
// and its Observe (pass.certificates; only certificates_*.go write it).
type certificatesState struct {
	// trusted are the certificates ca.crt holds after Reconcile: the CA
	// that signs first, then those still trusted during a move.
	trusted int
	// waiting names what still holds a certificate the replaced CA
	// signed; moveEnds is when that CA stops being trusted once nothing
	// waits (zero while something does).
	waiting  []string
	moveEnds time.Time
	// dropping: ca.crt trusts our CA alone, Postgres not yet (waiting
	// says why).
	dropping bool
	// renewAt is when the client CA or the replication certificate is
	// next replaced.
	renewAt time.Time
	// serverCAPending: CNPG has not published its server CA yet.
	serverCAPending bool
}

// Watch reads the three Secrets from the Secret cache (ours are labelled,
// so it holds them; the controller already routes their events).
func (certificatesComponent) Watch(w wiring) (reader, []informers.Registration) {
	lister := w.inf.Kube.Core().V1().Secrets().Lister()
	roles := w.inf.Setpoint.CNPG().V1().DatabaseRoles().Lister()
	read := func(pc *pgv1.PostgresCluster, o *observation) error {
		var s certSecrets
		for name, into := range map[string]**corev1.Secret{
			naming.ClientCASecret(pc.Name):       &s.clientCA,
			naming.ReplicationTLSSecret(pc.Name): &s.replication,
			naming.ServerCASecret(pc.Name):       &s.serverCA,
		} {
			cur, err := informers.IgnoreNotFound(lister.Secrets(pc.Namespace).Get(name))
			if err != nil {
				return err
			}
			*into = cur
		}
		if s.clientCA != nil && bytes.Count(s.clientCA.Data[naming.CACertKey], []byte("BEGIN CERTIFICATE")) > 1 {
			all, err := roles.DatabaseRoles(pc.Namespace).List(labels.Everything())
			if err != nil {
				return err
			}
			for _, r := range all {
				if r.Spec.Cluster.Name == pc.Name && certificateEnabled(r) {
					s.certRoles = append(s.certRoles, r.Name)
				}
			}
		}
		certificatesPart.set(o, s)
		return nil
	}
	return read, nil
}

func (certificatesComponent) Name() string            { return "certificates" }
func (certificatesComponent) Condition() string       { return pgv1.ConditionCertificatesReady }
func (certificatesComponent) Requires() []contractKey { return nil }
func (certificatesComponent) Provides() []contractKey { return []contractKey{contractCertificates} }

func (certificatesComponent) Reconcile(ctx context.Context, p *pass) error {
	s := certificatesPart.of(p.obs)
	ca, err := ensureClientCA(ctx, p, s.clientCA)
	if err != nil {
		return err
	}
	// The move first: the replication certificate follows a CA that
	// begins to sign in this pass.
	if err := settleMove(ctx, p, ca); err != nil {
		return err
	}
	leafRenew, err := ensureReplicationCert(ctx, p, s.replication, ca)
	if err != nil {
		return err
	}
	p.certificates.renewAt = earliest(leafRenew, ca.renewAt())
	return ensureServerCACopy(ctx, p, s.serverCA)
}

func (certificatesComponent) Observe(_ context.Context, p *pass, err error) health {
	if h, ok := conflictHealth(pgv1.ReasonCertificatesConflict, err); ok {
		return h
	}
	if err != nil {
		return waiting(pgv1.PhasePending, pgv1.ReasonCertificatesError, err.Error(), 0)
	}
	p.contracts.Certificates = true
	st := p.certificates
	now := p.deps.clock.Now()
	note := ""
	if st.serverCAPending {
		note = fmt.Sprintf("; %s follows once CloudNativePG has made its server CA", naming.ServerCASecret(p.cluster.Name))
	}
	if st.trusted > 1 || st.dropping {
		h := ready(pgv1.ReasonClientCAMoving, moveMessage(p, st, now)+note)
		// CNPG's certificate Secrets are not ours to watch, nor is
		// Postgres reloading its CA file: polled.
		h.RequeueAfter = provisionRecheck
		if len(st.waiting) == 0 {
			h.RequeueAfter = max(st.moveEnds.Sub(now), time.Second)
		}
		return h
	}
	h := ready(pgv1.ReasonClientCAIsolated, fmt.Sprintf(
		"client certificates are signed by %s alone; applications verify the server with %s",
		naming.ClientCASecret(p.cluster.Name), naming.ServerCASecret(p.cluster.Name))+note)
	if until := st.renewAt.Sub(now); until < 24*time.Hour {
		h.RequeueAfter = max(until, time.Second)
	}
	return h
}

func moveMessage(p *pass, st certificatesState, now time.Time) string {
	name := naming.ClientCASecret(p.cluster.Name)
	if st.dropping {
		return fmt.Sprintf("%s alone signs client certificates and is alone in its Secret; the move ends once Postgres trusts it alone: %s",
			name, strings.Join(st.waiting, "; "))
	}
	if len(st.waiting) > 0 {
		return fmt.Sprintf("%s signs client certificates; the CA it replaces is still trusted while these are re-issued: %s",
			name, strings.Join(st.waiting, "; "))
	}
	return fmt.Sprintf("%s signs client certificates; every certificate is re-issued, and the CA it replaces is trusted until %s (in %s) for clients still holding an old one",
		name, st.moveEnds.UTC().Format(time.RFC3339), st.moveEnds.Sub(now).Round(time.Second))
}

func earliest(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// Release keeps the Secrets the retained CNPG Cluster names.
func (certificatesComponent) Release(ctx context.Context, t *teardown) error {
	s := certificatesPart.of(t.obs)
	patch := t.deps.kube.CoreV1().Secrets(t.pc.Namespace).Patch
	for _, cur := range []*corev1.Secret{s.clientCA, s.replication, s.serverCA} {
		if err := releaseChild(ctx, t, "Secret", cur, patch); err != nil {
			return err
		}
	}
	return nil
}

// certificateEnabled is CNPG's IsClientCertificateEnabled: a
// clientCertificate block is on unless it says enabled: false.
func certificateEnabled(r *cnpgv1.DatabaseRole) bool {
	c := r.Spec.ClientCertificate
	return c != nil && (c.Enabled == nil || *c.Enabled)
}
