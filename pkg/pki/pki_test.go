package pki

import (
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
