package pki

import (
	"bytes"
	"crypto/x509"
	"testing"
	"time"
)

func TestAuthoritySignsClientsItAloneVerifies(t *testing.T) {
	now := time.Now()
	ca, err := NewAuthority("shop-client-ca", now, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	other, err := NewAuthority("shop-ca", now, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _, err := ca.IssueClient("streaming_replica", now, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if !SignedBy(leaf, ca.Cert) {
		t.Fatal("a leaf is not verified by the CA that signed it")
	}
	if SignedBy(leaf, other.Cert) {
		t.Fatal("a leaf is verified by a CA that did not sign it")
	}
	back, err := ParseAuthority(Bundle(ca.Cert, other.Cert), ca.KeyPEM)
	if err != nil {
		t.Fatalf("a bundle whose first certificate matches the key: %v", err)
	}
	if !back.Cert.Equal(ca.Cert) {
		t.Fatal("ParseAuthority did not take the bundle's first certificate")
	}
	if _, err := ParseAuthority(Bundle(other.Cert, ca.Cert), ca.KeyPEM); err == nil {
		t.Fatal("a key that does not match the first certificate was accepted")
	}
}

func TestBundleKeepsOrderAndDropsRepeats(t *testing.T) {
	now := time.Now()
	a, _ := NewAuthority("a", now, time.Hour)
	b, _ := NewAuthority("b", now, time.Hour)
	got, err := ParseBundle(Bundle(a.Cert, b.Cert, a.Cert))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !got[0].Equal(a.Cert) || !got[1].Equal(b.Cert) {
		t.Fatalf("bundle = %d certificates, want a then b", len(got))
	}
	if _, err := ParseBundle([]byte("not pem")); err == nil {
		t.Fatal("no certificate parsed without an error")
	}
}

func TestLeafNeverOutlivesItsCA(t *testing.T) {
	now := time.Now()
	ca, _ := NewAuthority("ca", now, time.Hour)
	leafPEM, _, err := ca.IssueClient("x", now, 90*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	leaf, _ := ParseBundle(leafPEM)
	if leaf[0].NotAfter.After(ca.Cert.NotAfter) {
		t.Fatalf("leaf ends %v, after its CA %v", leaf[0].NotAfter, ca.Cert.NotAfter)
	}
}

func TestExpiringAtTwoThirdsOfLife(t *testing.T) {
	now := time.Now()
	ca, _ := NewAuthority("ca", now, 90*time.Hour) // NotBefore is an hour earlier: 91 h of life
	if Expiring(ca.Cert, now) {
		t.Fatal("a new CA is expiring")
	}
	at := RenewAt(ca.Cert)
	if Expiring(ca.Cert, at.Add(-time.Minute)) || !Expiring(ca.Cert, at.Add(time.Minute)) {
		t.Fatalf("Expiring does not turn at RenewAt (%v)", at)
	}
}

// A re-dated CA verifies what it signed at the present, as Postgres does,
// but not at the certificate's own NotBefore, as CloudNativePG checks
// whether a certificate is signed by the current CA: so CNPG re-issues,
// while Postgres still accepts the certificate it replaces.
func TestRedatedCAVerifiesNowButNotAtTheLeafsStart(t *testing.T) {
	now := time.Now()
	ca, _ := NewAuthority("shop", now.Add(-48*time.Hour), 90*24*time.Hour)
	leafPEM, _, err := ca.IssueClient("orders_rw", now.Add(-24*time.Hour), time.Hour*48)
	if err != nil {
		t.Fatal(err)
	}
	redated, err := ca.Redated(now.Add(-2 * time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(redated.RawSubject, ca.Cert.RawSubject) || !bytes.Equal(redated.SubjectKeyId, ca.Cert.SubjectKeyId) {
		t.Fatal("the re-dated CA is not the same CA")
	}
	leaf, _ := ParseBundle(leafPEM)
	roots := x509.NewCertPool()
	roots.AddCert(redated)
	opts := x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	if _, err := leaf[0].Verify(opts); err != nil {
		t.Fatalf("at the present the re-dated CA does not verify what the CA signed: %v", err)
	}
	opts.CurrentTime = leaf[0].NotBefore
	if _, err := leaf[0].Verify(opts); err == nil {
		t.Fatal("at the leaf's NotBefore the re-dated CA still verifies it: CNPG would not re-issue")
	}
	if SignedBy(leafPEM, redated) {
		t.Fatal("SignedBy (CNPG's check) counts the leaf as signed by the re-dated CA")
	}
}

// Two CAs of one name have different subjects, so a handshake that lists
// the CAs a server trusts, and OpenSSL looking up an issuer, tell them
// apart.
func TestCAsOfOneNameDiffer(t *testing.T) {
	now := time.Now()
	a, _ := NewAuthority("shop-client-ca", now, time.Hour)
	b, _ := NewAuthority("shop-client-ca", now, time.Hour)
	if bytes.Equal(a.Cert.RawSubject, b.Cert.RawSubject) {
		t.Fatal("two CAs of one name share a subject")
	}
	if a.Cert.Subject.CommonName != "shop-client-ca" {
		t.Fatalf("CN = %q", a.Cert.Subject.CommonName)
	}
}
