package cnpgsim

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// Client certificates of DatabaseRoles, as CNPG v1.30.0's operator issues
// them (internal/controller/databaserole_pki.go, reconcileClientCertificate):
//
//   - with spec.clientCertificate enabled (the default once the block is
//     there), a Secret `<object>-client-cert` of type kubernetes.io/tls
//     (tls.crt, tls.key), labelled app.kubernetes.io/managed-by:
//     cloudnative-pg, controlled by the DatabaseRole, holding a
//     certificate for CN = the role's name, client-auth usage, signed by
//     the Cluster's client CA (`<cluster>-ca`, whose ca.key it needs);
//     status.clientCertificate.expiration is its NotAfter (RFC 3339);
//   - a CA Secret without ca.key: status.clientCertificate.message, no
//     Secret; a same-named Secret the object does not control: left
//     alone, with a message; a certificate not signed by the CA as it is
//     now is re-issued;
//   - disabled or removed: the Secret it controls is deleted and
//     status.clientCertificate cleared.
//
// CNPG does not add a pg_hba.conf rule for such roles: the user does, in
// the Cluster's spec.postgresql.pg_hba (docs/src/declarative_role_management.md,
// "Configuring pg_hba.conf"); the stand-in's servers apply those lines and
// trust the Cluster's CA for client certificates (ssl_ca_file), as CNPG's
// instances do with the client CA. Simpler here: the certificate lives 90
// days and is not renewed before it expires (CNPG: renewed within 7 days
// of expiry, rechecked hourly); the Secret's bytes are not re-validated
// unless they fail to parse.

const (
	clientCertSuffix = "-client-cert"
	managedByLabel   = "app.kubernetes.io/managed-by"
	clientCertLife   = 90 * 24 * time.Hour
)

// clientCertEnabled is CNPG's IsClientCertificateEnabled.
func clientCertEnabled(role *cnpgv1.DatabaseRole) bool {
	c := role.Spec.ClientCertificate
	return c != nil && ptr.Deref(c.Enabled, true)
}

// syncClientCertificate is the operator's reconcileClientCertificate with
// its status merge-patch of status.clientCertificate only. It returns the
// object as written (nil when it is gone).
func (s *Simulator) syncClientCertificate(ctx context.Context, role *cnpgv1.DatabaseRole) (*cnpgv1.DatabaseRole, error) {
	state, err := s.clientCertState(ctx, role)
	if err != nil {
		return nil, err
	}
	if equalCertState(role.Status.ClientCertificate, state) {
		return role, nil
	}
	var value any // nil removes the field
	if state != nil {
		value = map[string]any{"expiration": emptyAsNull(state.Expiration), "message": emptyAsNull(state.Message)}
	}
	return s.patchDatabaseRole(ctx, role, map[string]any{"status": map[string]any{"clientCertificate": value}}, "status")
}

func equalCertState(a, b *cnpgv1.ClientCertificateState) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// clientCertState issues, keeps or removes the Secret and says what the
// status should be. no state (nil) means no certificate.
func (s *Simulator) clientCertState(ctx context.Context, role *cnpgv1.DatabaseRole) (*cnpgv1.ClientCertificateState, error) {
	name := role.Name + clientCertSuffix
	cur, err := s.secrets.Secrets(role.Namespace).Get(name)
	if err != nil && !apierrors.IsNotFound(err) {
		return nil, fmt.Errorf("get cert secret: %w", err)
	}
	if apierrors.IsNotFound(err) {
		cur = nil
	}
	owned := cur != nil && metav1.IsControlledBy(cur, role)
	if !clientCertEnabled(role) {
		if cur == nil {
			return nil, nil
		}
		if !owned {
			return &cnpgv1.ClientCertificateState{Message: fmt.Sprintf(
				"Secret %q is not owned by this DatabaseRole and will not be deleted automatically", name)}, nil
		}
		if err := s.kube.CoreV1().Secrets(role.Namespace).Delete(ctx, name, metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			return nil, fmt.Errorf("delete cert secret: %w", err)
		}
		return nil, nil
	}
	cluster, err := s.clusters.Clusters(role.Namespace).Get(role.Spec.Cluster.Name)
	if err != nil {
		return role.Status.ClientCertificate, nil // CNPG: retried when the Cluster appears
	}
	caName := clientCASecretName(cluster)
	caSecret, err := s.secrets.Secrets(role.Namespace).Get(caName)
	if apierrors.IsNotFound(err) {
		return role.Status.ClientCertificate, nil
	}
	if err != nil {
		return nil, fmt.Errorf("get client CA secret: %w", err)
	}
	if len(caSecret.Data[caKeyKey]) == 0 {
		return &cnpgv1.ClientCertificateState{Message: fmt.Sprintf(
			"client CA secret %q has no private key; bring-your-own-CA clusters require manual certificate management", caName)}, nil
	}
	if cur != nil && !owned {
		return &cnpgv1.ClientCertificateState{Message: fmt.Sprintf("Secret %q already exists and is not owned by this DatabaseRole", name)}, nil
	}
	ca, err := parseAuthority(caSecret.Data[caCertKey], caSecret.Data[caKeyKey])
	if err != nil {
		return nil, err
	}
	if cur != nil {
		if leaf, err := signedLeaf(cur.Data[corev1.TLSCertKey], caSecret.Data[caCertKey]); err == nil {
			return &cnpgv1.ClientCertificateState{Expiration: leaf.NotAfter.UTC().Format(time.RFC3339)}, nil
		}
	}
	certPEM, keyPEM, leaf, err := ca.issueClient(role.Spec.Name)
	if err != nil {
		return nil, err
	}
	data := map[string][]byte{corev1.TLSCertKey: certPEM, corev1.TLSPrivateKeyKey: keyPEM}
	if cur == nil {
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: role.Namespace,
				Labels:          map[string]string{managedByLabel: "cloudnative-pg"},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(role, cnpgv1.SchemeGroupVersion.WithKind("DatabaseRole"))}},
			Type: corev1.SecretTypeTLS, Data: data,
		}
		_, err := s.kube.CoreV1().Secrets(role.Namespace).Create(ctx, secret, metav1.CreateOptions{FieldManager: s.opts.FieldManager})
		if apierrors.IsAlreadyExists(err) {
			// Created by an earlier pass our cache has not seen: its
			// event brings the object back here (enqueueOwner).
			return role.Status.ClientCertificate, nil
		}
		if err != nil {
			return nil, fmt.Errorf("create cert secret: %w", err)
		}
	} else {
		next := cur.DeepCopy()
		next.Data = data
		if _, err := s.kube.CoreV1().Secrets(role.Namespace).Update(ctx, next, metav1.UpdateOptions{FieldManager: s.opts.FieldManager}); err != nil {
			return nil, fmt.Errorf("update cert secret: %w", err)
		}
	}
	return &cnpgv1.ClientCertificateState{Expiration: leaf.NotAfter.UTC().Format(time.RFC3339)}, nil
}

// signedLeaf parses a client certificate and checks that some CA of the
// client CA's ca.crt, as it is now, signed it for client authentication,
// at the certificate's own NotBefore: CNPG's clientCertSignedByCurrentCA
// (certs.KeyPair.IsValid puts the whole bundle in the roots). So a CA
// rotation that keeps the old CA in the bundle as it was re-issues
// nothing, and one that keeps it re-dated re-issues everything.
func signedLeaf(certPEM, caBundle []byte) (*x509.Certificate, error) {
	leaf, err := firstCertificate(certPEM)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caBundle) {
		return nil, errors.New("invalid CA certificates")
	}
	if _, err := leaf.Verify(x509.VerifyOptions{Roots: pool, CurrentTime: leaf.NotBefore,
		KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
		return nil, fmt.Errorf("verify client certificate: %w", err)
	}
	return leaf, nil
}

// issueClient signs a client certificate for role (CN = role, as
// Postgres's cert method matches it), CNPG's key usages for CertTypeClient.
func (a *authority) issueClient(role string) (certPEM, keyPEM []byte, leaf *x509.Certificate, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("generate client key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial(),
		Subject:               pkix.Name{CommonName: role},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(clientCertLife),
		BasicConstraintsValid: true,
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyAgreement,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.cert, &key.PublicKey, a.key)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("sign client certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("encode client key: %w", err)
	}
	leaf, err = x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("parse client certificate: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), leaf, nil
}

// firstCertificate parses the first certificate of PEM data.
func firstCertificate(certPEM []byte) (*x509.Certificate, error) {
	b, _ := pem.Decode(certPEM)
	if b == nil {
		return nil, errors.New("no PEM certificate")
	}
	c, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parse certificate: %w", err)
	}
	return c, nil
}
