package cluster

import (
	"context"
	"crypto"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefakecs "k8s.io/client-go/kubernetes/fake"
	"k8s.io/client-go/tools/record"
	clocktesting "k8s.io/utils/clock/testing"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	ct "github.com/setpoint-dev/setpoint/pkg/controller/internal/controllertest"
	"github.com/setpoint-dev/setpoint/pkg/pki"
)

// certWorld is the API (a fake clientset), the clock, CNPG's Cluster and
// its server CA, as certificates passes see them.
type certWorld struct {
	t     *testing.T
	cs    *kubefakecs.Clientset
	clock *clocktesting.FakePassiveClock
	rec   *record.FakeRecorder
	cnpg  *cnpgv1.Cluster
	ca    []byte // CNPG's <cluster>-ca ca.crt
	roles []string
	// accepts are the client CAs Postgres's handshake lists.
	accepts []*pki.Authority
	// annotations are the PostgresCluster's.
	annotations map[string]string
}

func newCertWorld(t *testing.T, objs ...*corev1.Secret) *certWorld {
	cs := kubefake()
	for _, o := range objs {
		if err := cs.Tracker().Add(o); err != nil {
			t.Fatal(err)
		}
	}
	return &certWorld{t: t, cs: cs, clock: testClock(), rec: record.NewFakeRecorder(16)}
}

// pass runs the component once over a snapshot read from the API.
func (w *certWorld) pass() (health, *pass) {
	w.t.Helper()
	p := testPass()
	p.cluster.Annotations = w.annotations
	p.obs = &observation{cnpg: w.cnpg, ca: w.ca}
	s := certSecrets{certRoles: w.roles}
	s.clientCA, s.replication, s.serverCA = w.secret("shop-client-ca"), w.secret("shop-replication-tls"), w.secret("shop-server-ca")
	certificatesPart.set(p.obs, s)
	p.deps = &deps{kube: w.cs, recorder: w.rec, clock: w.clock, clientCAGrace: time.Hour,
		clientCAs: func(context.Context, *pass) ([][]byte, error) {
			var out [][]byte
			for _, a := range w.accepts {
				out = append(out, a.Cert.RawSubject)
			}
			return out, nil
		}}
	c := certificatesComponent{}
	return c.Observe(w.t.Context(), p, c.Reconcile(w.t.Context(), p)), p
}

// acceptEverything makes Postgres's handshake list every CA of ca.crt.
func (w *certWorld) acceptEverything() {
	s := w.secret("shop-client-ca")
	certs, _ := pki.ParseBundle(s.Data["ca.crt"])
	w.accepts = nil
	for _, c := range certs {
		w.accepts = append(w.accepts, &pki.Authority{Cert: c})
	}
}

func (w *certWorld) secret(name string) *corev1.Secret {
	s, err := w.cs.CoreV1().Secrets("ns").Get(w.t.Context(), name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return s
}

func (w *certWorld) trusted() []string {
	certs, err := pki.ParseBundle(w.secret("shop-client-ca").Data["ca.crt"])
	if err != nil {
		w.t.Fatal(err)
	}
	var out []string
	for _, c := range certs {
		out = append(out, c.Subject.CommonName)
	}
	return out
}

func (w *certWorld) clientCA() *pki.Authority {
	s := w.secret("shop-client-ca")
	a, err := pki.ParseAuthority(s.Data["ca.crt"], s.Data["ca.key"])
	if err != nil {
		w.t.Fatal(err)
	}
	return a
}

// certSecret is a CNPG-issued client certificate Secret signed by ca.
func certSecret(t *testing.T, name string, ca *pki.Authority, now time.Time) *corev1.Secret {
	crt, key, err := ca.IssueClient("orders_rw", now, 90*24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns"}, Type: corev1.SecretTypeTLS,
		Data: map[string][]byte{"tls.crt": crt, "tls.key": key}}
}

// A new cluster: its own client CA, trusting nothing else, a replication
// certificate it signed, and no application-facing copy before CNPG has
// a server CA. A second pass writes nothing.
func TestNewClusterGetsItsOwnClientCA(t *testing.T) {
	t.Parallel()
	w := newCertWorld(t)
	h, p := w.pass()
	if h.Phase != pgv1.PhaseReady || h.Reason != pgv1.ReasonClientCAIsolated || !p.contracts.Certificates {
		t.Fatalf("health = %+v, contract %v", h, p.contracts.Certificates)
	}
	if got := w.trusted(); len(got) != 1 || got[0] != "shop-client-ca" {
		t.Fatalf("client CA trusts %v, want only its own", got)
	}
	ca := w.clientCA()
	if !ca.Cert.IsCA {
		t.Fatal("the client CA is not a CA")
	}
	repl := w.secret("shop-replication-tls")
	if !pki.SignedBy(repl.Data["tls.crt"], ca.Cert) || repl.Type != corev1.SecretTypeTLS {
		t.Fatal("the replication certificate is not a TLS Secret the client CA signed")
	}
	leaf, _ := pki.ParseBundle(repl.Data["tls.crt"])
	if leaf[0].Subject.CommonName != "streaming_replica" {
		t.Fatalf("replication certificate for %q", leaf[0].Subject.CommonName)
	}
	if w.secret("shop-server-ca") != nil {
		t.Fatal("a server CA copy was written with no server CA to copy")
	}
	w.cs.ClearActions()
	w.pass()
	if n := len(ct.Writes(w.cs.Actions())); n != 0 {
		t.Fatalf("converged pass wrote %d times: %v", n, w.cs.Actions())
	}
}

// The copy applications are pointed to holds CNPG's ca.crt and no key,
// and follows it when CNPG renews its CA.
func TestServerCACopyHoldsNoKey(t *testing.T) {
	t.Parallel()
	w := newCertWorld(t)
	server, _ := pki.NewAuthority("shop", t0, 90*24*time.Hour)
	w.ca = server.CertPEM
	w.pass()
	cp := w.secret("shop-server-ca")
	if cp == nil || len(cp.Data) != 1 || string(cp.Data["ca.crt"]) != string(server.CertPEM) {
		t.Fatalf("server CA copy = %v", cp)
	}
	renewed, _ := pki.NewAuthority("shop", t0, 90*24*time.Hour)
	w.ca = renewed.CertPEM
	w.pass()
	if got := w.secret("shop-server-ca").Data["ca.crt"]; string(got) != string(renewed.CertPEM) {
		t.Fatal("the copy did not follow CNPG's renewed CA")
	}
}

// An existing cluster (an earlier setpoint let CNPG sign client
// certificates with the server CA) moves without a failed login: Postgres
// first learns to trust the new CA while the old one still signs; then
// the new one signs, the old one stays trusted until CNPG re-issued every
// certificate it signed and the grace has passed; then it is refused.
func TestExistingClusterMovesToItsOwnClientCA(t *testing.T) {
	t.Parallel()
	server, _ := pki.NewAuthority("shop", t0.Add(-24*time.Hour), 90*24*time.Hour)
	serverSecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-ca", Namespace: "ns"},
		Data: map[string][]byte{"ca.crt": server.CertPEM, "ca.key": server.KeyPEM}}
	oldRole := certSecret(t, "shop.orders-rw-client-cert", server, t0.Add(-time.Hour))
	w := newCertWorld(t, serverSecret, oldRole)
	w.roles = []string{"shop.orders-rw"}
	w.ca = server.CertPEM
	w.cnpg = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}}

	// Trusting: the server CA still signs, the new CA is trusted too.
	h, _ := w.pass()
	if got := w.trusted(); len(got) != 2 || got[0] != "shop" || got[1] != "shop-client-ca" {
		t.Fatalf("while Postgres learns the new CA, ca.crt = %v, want the server CA (signing) then the new one", got)
	}
	if !pki.SignedBy(w.secret("shop-replication-tls").Data["tls.crt"], server.Cert) {
		t.Fatal("the replication certificate is not signed by the CA that signs now")
	}
	if h.Reason != pgv1.ReasonClientCAMoving || !strings.Contains(h.Message, "CloudNativePG has not taken") {
		t.Fatalf("health = %+v", h)
	}
	next := w.secret("shop-client-ca").Data["next.key"]
	if len(next) == 0 {
		t.Fatal("the new CA's key is not kept while it waits")
	}

	// CNPG takes it, but Postgres has not reloaded: still trusting.
	w.cnpg.Status.Certificates = &cnpgv1.CertificatesStatus{ClientCASecret: "shop-client-ca", ReplicationTLSSecret: "shop-replication-tls"}
	h, _ = w.pass()
	if w.trusted()[0] != "shop" || !strings.Contains(h.Message, "Postgres does not trust the new client CA yet") {
		t.Fatalf("before Postgres trusts it: ca.crt %v, health %+v", w.trusted(), h)
	}
	if ev := ct.Events(w.rec); len(ev) != 0 {
		t.Fatalf("events before the new CA signs: %v", ev)
	}

	// Postgres lists it: the new CA signs; the role's certificate waits.
	bundle, _ := pki.ParseBundle(w.secret("shop-client-ca").Data["ca.crt"])
	nextCA, err := pki.ParseAuthority(pki.Bundle(bundle[1]), next)
	if err != nil {
		t.Fatal(err)
	}
	w.accepts = []*pki.Authority{server, nextCA}
	h, _ = w.pass()
	if got := w.trusted(); len(got) != 2 || got[0] != "shop-client-ca" || got[1] != "shop" {
		t.Fatalf("once Postgres trusts it, ca.crt = %v, want the new CA first", got)
	}
	// The server CA follows re-dated: what it signed still verifies now
	// (Postgres), not at its own start (CNPG's check), so CNPG re-issues.
	bundle, _ = pki.ParseBundle(w.secret("shop-client-ca").Data["ca.crt"])
	if !bundle[1].NotBefore.Equal(t0.Add(-redateSlack).Truncate(time.Second)) || !bundle[1].PublicKey.(interface{ Equal(crypto.PublicKey) bool }).Equal(server.Cert.PublicKey) {
		t.Fatalf("the replaced CA in ca.crt: from %v, same key %v", bundle[1].NotBefore, bundle[1].PublicKey)
	}
	if pki.SignedBy(oldRole.Data["tls.crt"], bundle[1]) {
		t.Fatal("CNPG's check would still count the old certificate as current")
	}
	if _, ok := w.secret("shop-client-ca").Data["next.key"]; ok || !w.clientCA().Cert.Equal(nextCA.Cert) {
		t.Fatal("the new CA does not sign with its own key")
	}
	if !pki.SignedBy(w.secret("shop-replication-tls").Data["tls.crt"], nextCA.Cert) {
		t.Fatal("the replication certificate was not re-signed in the pass the new CA began to sign")
	}
	if ev := ct.Events(w.rec); len(ev) != 1 || !strings.Contains(ev[0], pgv1.EventClientCAReplaced) {
		t.Fatalf("events = %v", ev)
	}
	h, _ = w.pass()
	if h.Reason != pgv1.ReasonClientCAMoving || !strings.Contains(h.Message, "DatabaseRole shop.orders-rw's certificate") {
		t.Fatalf("health with a certificate not re-issued = %+v", h)
	}

	// CNPG re-issues it: the grace starts, the old CA is still trusted.
	reissued := certSecret(t, "shop.orders-rw-client-cert", w.clientCA(), t0)
	if _, err := w.cs.CoreV1().Secrets("ns").Update(t.Context(), reissued, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	h, _ = w.pass()
	until := w.secret("shop-client-ca").Annotations[replacedCATrustedUntil]
	if until != t0.Add(time.Hour).UTC().Format(time.RFC3339) || len(w.trusted()) != 2 || h.RequeueAfter != time.Hour {
		t.Fatalf("after re-issue: until %q, trusted %v, health %+v", until, w.trusted(), h)
	}
	w.clock.SetTime(t0.Add(59 * time.Minute))
	if w.pass(); len(w.trusted()) != 2 {
		t.Fatal("the old CA was dropped before the grace ended")
	}

	// The grace ends: the Secret trusts the cluster's own CA alone; the
	// move lasts until Postgres does too.
	w.clock.SetTime(t0.Add(time.Hour))
	h, _ = w.pass()
	if got := w.trusted(); len(got) != 1 || got[0] != "shop-client-ca" || h.Reason != pgv1.ReasonClientCAMoving ||
		!strings.Contains(h.Message, "Postgres has not reloaded") || h.RequeueAfter != provisionRecheck {
		t.Fatalf("after the grace: trusted %v, health %+v", got, h)
	}
	// A restarted operator's pass still waits for Postgres, and a
	// rotation request waits for the move to end.
	w.annotations = map[string]string{pgv1.RotateClientCAAnnotation: "too-soon"}
	h, _ = w.pass()
	if got := w.trusted(); len(got) != 1 || h.Reason != pgv1.ReasonClientCAMoving || !strings.Contains(h.Message, "Postgres still trusts the replaced client CA") {
		t.Fatalf("while Postgres still lists the replaced CA: trusted %v, health %+v", got, h)
	}
	if ev := ct.Events(w.rec); len(ev) != 0 {
		t.Fatalf("events before Postgres dropped the replaced CA: %v", ev)
	}
	w.annotations = nil
	w.accepts = []*pki.Authority{nextCA}
	h, _ = w.pass()
	if got := w.trusted(); len(got) != 1 || got[0] != "shop-client-ca" || h.Reason != pgv1.ReasonClientCAIsolated {
		t.Fatalf("once Postgres trusts the new CA alone: trusted %v, health %+v", got, h)
	}
	for _, a := range []string{replacedCATrustedUntil, replacedCADropped} {
		if _, ok := w.secret("shop-client-ca").Annotations[a]; ok {
			t.Fatalf("annotation %s outlived the move", a)
		}
	}
	if ev := ct.Events(w.rec); len(ev) != 1 || !strings.Contains(ev[0], pgv1.EventClientCAMoved) {
		t.Fatalf("events = %v", ev)
	}
}

// A pooler's certificate, which CNPG re-signs only near its expiry, keeps
// the move open, and status says until when.
func TestPoolerCertificateHoldsTheMoveOpen(t *testing.T) {
	t.Parallel()
	server, _ := pki.NewAuthority("shop", t0.Add(-24*time.Hour), 90*24*time.Hour)
	pooler := certSecret(t, "shop-pooler", server, t0.Add(-time.Hour))
	serverSecret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-ca", Namespace: "ns"},
		Data: map[string][]byte{"ca.crt": server.CertPEM, "ca.key": server.KeyPEM}}
	w := newCertWorld(t, serverSecret, pooler)
	w.ca = server.CertPEM
	w.cnpg = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"}}
	w.pass()
	w.cnpg.Status.Certificates = &cnpgv1.CertificatesStatus{ClientCASecret: "shop-client-ca", ReplicationTLSSecret: "shop-replication-tls"}
	w.cnpg.Status.PoolerIntegrations = &cnpgv1.PoolerIntegrations{PgBouncerIntegration: cnpgv1.PgBouncerIntegrationStatus{Secrets: []string{"shop-pooler"}}}
	w.acceptEverything()
	w.pass() // the new CA begins to sign
	h, _ := w.pass()
	leaf, _ := pki.ParseBundle(pooler.Data["tls.crt"])
	by := leaf[0].NotAfter.Add(-7 * 24 * time.Hour).UTC().Format(time.RFC3339)
	if h.Reason != pgv1.ReasonClientCAMoving || !strings.Contains(h.Message, "shop-pooler") || !strings.Contains(h.Message, by) {
		t.Fatalf("health = %+v, want the pooler's certificate named with %s", h, by)
	}
	if _, ok := w.secret("shop-client-ca").Annotations[replacedCATrustedUntil]; ok {
		t.Fatal("the grace started while a certificate still waits")
	}
}

// runningOnItsClientCA is a cluster whose CNPG Cluster runs on the client
// CA the first pass made, and that CA.
func runningOnItsClientCA(t *testing.T) (*certWorld, *pki.Authority) {
	w := newCertWorld(t)
	w.pass()
	w.cnpg = &cnpgv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns"},
		Spec:   cnpgv1.ClusterSpec{Certificates: &cnpgv1.CertificatesConfiguration{ClientCASecret: "shop-client-ca"}},
		Status: cnpgv1.ClusterStatus{Certificates: &cnpgv1.CertificatesStatus{ClientCASecret: "shop-client-ca", ReplicationTLSSecret: "shop-replication-tls"}}}
	return w, w.clientCA()
}

// A client CA with a third of its life left is replaced by the same
// move: the new one signs, the old one stays trusted meanwhile, and the
// replication certificate is re-signed at once.
func TestClientCAIsRenewedBeforeItsEnd(t *testing.T) {
	t.Parallel()
	w, first := runningOnItsClientCA(t)
	w.clock.SetTime(pki.RenewAt(first.Cert).Add(time.Minute))
	w.pass() // trusting: the expiring CA still signs
	if !w.clientCA().Cert.Equal(first.Cert) || len(w.trusted()) != 2 {
		t.Fatalf("the expiring CA should keep signing while Postgres learns the next; trusted %v", w.trusted())
	}
	w.acceptEverything()
	h, _ := w.pass()
	next := w.clientCA()
	if next.Cert.Equal(first.Cert) || len(w.trusted()) != 2 || h.Reason != pgv1.ReasonClientCAMoving {
		t.Fatalf("renewal: new CA %v, trusted %v, health %+v", !next.Cert.Equal(first.Cert), w.trusted(), h)
	}
	if !pki.SignedBy(w.secret("shop-replication-tls").Data["tls.crt"], next.Cert) {
		t.Fatal("the replication certificate was not re-signed by the new CA")
	}
}

// A Secret of the name that setpoint did not create is refused and left
// as it is; nothing else is written.
func TestForeignClientCASecretIsRefused(t *testing.T) {
	t.Parallel()
	foreign := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-client-ca", Namespace: "ns"},
		Data: map[string][]byte{"ca.crt": []byte("theirs")}}
	w := newCertWorld(t, foreign)
	h, p := w.pass()
	if h.Phase != pgv1.PhaseFailed || h.Reason != pgv1.ReasonCertificatesConflict || !strings.Contains(h.Message, "shop-client-ca") {
		t.Fatalf("health = %+v", h)
	}
	if p.contracts.Certificates {
		t.Fatal("the contract was published over a refused Secret")
	}
	if n := len(ct.Writes(w.cs.Actions())); n != 0 {
		t.Fatalf("%d writes: %v", n, w.cs.Actions())
	}
	if string(w.secret("shop-client-ca").Data["ca.crt"]) != "theirs" {
		t.Fatal("the foreign Secret was changed")
	}
}

// A rotate-client-ca request replaces the client CA by the same move, once:
// the Secret records the request it answered, so neither the next pass
// nor a new operator starts another for it.
func TestRotationRequestMovesOnce(t *testing.T) {
	t.Parallel()
	w, first := runningOnItsClientCA(t)
	w.annotations = map[string]string{pgv1.RotateClientCAAnnotation: "r1"}
	w.pass()
	if got := w.secret("shop-client-ca").Annotations[pgv1.ClientCARotatedForAnnotation]; got != "r1" || len(w.trusted()) != 2 {
		t.Fatalf("after the request: answered %q, trusted %v", got, w.trusted())
	}
	if ev := ct.Events(w.rec); len(ev) != 1 || !strings.Contains(ev[0], pgv1.EventClientCARotating) {
		t.Fatalf("events = %v", ev)
	}
	// Postgres still lists only the CA of the same name it had: the new
	// one does not sign yet (a subject per CA, not per name).
	w.accepts = []*pki.Authority{first}
	w.pass()
	if !w.clientCA().Cert.Equal(first.Cert) {
		t.Fatal("the new CA signs before Postgres lists it")
	}
	w.acceptEverything()
	w.pass() // the new CA signs
	w.clock.SetTime(t0.Add(2 * time.Hour))
	w.pass() // nothing waits: the grace begins
	w.clock.SetTime(t0.Add(4 * time.Hour))
	w.pass() // the Secret drops the replaced CA
	w.acceptEverything()
	h, _ := w.pass() // and so has Postgres
	second := w.clientCA()
	if second.Cert.Equal(first.Cert) || len(w.trusted()) != 1 || h.Reason != pgv1.ReasonClientCAIsolated {
		t.Fatalf("after the move: new CA %v, trusted %v, health %+v", !second.Cert.Equal(first.Cert), w.trusted(), h)
	}
	w.pass()
	if !w.clientCA().Cert.Equal(second.Cert) || len(w.trusted()) != 1 {
		t.Fatal("the same request started a second move")
	}
}
