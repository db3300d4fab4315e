package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The facts and the role check of one pass share one connection attempt:
// the second caller gets the first one's answer, not a second attempt.
func TestSuperuserConnTriedOncePerPass(t *testing.T) {
	p := testPass()
	p.obs = &observation{}
	if _, err := p.superuserConn(t.Context()); err == nil {
		t.Fatal("connected without a superuser Secret or CA")
	}
	// Were it tried again, this would now reach the (nil) connector.
	p.contracts.Secret = &corev1.Secret{Data: map[string][]byte{"username": []byte("postgres"), "password": []byte("x")}}
	p.obs.ca = []byte("-----BEGIN CERTIFICATE-----")
	if _, err := p.superuserConn(t.Context()); err == nil || err.Error() != "superuser secret or CA not available yet" {
		t.Errorf("second call: %v, want the first call's answer", err)
	}
	p.closeConn(t.Context()) // nothing opened: a no-op
}
