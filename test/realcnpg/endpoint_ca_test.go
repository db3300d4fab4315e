package realcnpg

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"net"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// An S3-compatible store whose certificate a private CA signed: the
// node's store over HTTPS (S3TLSEndpoint), trusted by nothing in the
// barman-cloud sidecar's image, and the class's endpointCA naming that CA
// in a Secret of the cluster's namespace. The ObjectStore carries it; the
// plugin mounts it, and barman-cloud verifies the store against it: WAL
// is archived and a base backup taken through it, and a cluster restored
// from them (the recovery Job reads the backup and replays the WAL through
// the same CA) has the rows written before and after the backup. One
// source cluster serves archiving and backup, one copy the restore.
func TestEndpointCAArchivesAndRestoresOnRealCNPG(t *testing.T) {
	t.Parallel()
	ns := kit.Namespace(t)
	ca := storeCAInto(t, ns, "s3-ca")
	storeServesOnlyItsCA(t, ca)
	class := s3BackupClass(t, ns, "", func(s *pgv1.ClusterSettings) {
		s.Backup.ObjectStore.EndpointURL = S3TLSEndpoint
		s.Backup.ObjectStore.EndpointCA = &pgv1.SecretKeyRef{Name: "s3-ca", Key: "ca.crt"}
	})
	createCluster(t, ns, "shop", class)
	kit.WaitCluster(t, ns, "shop", pgv1.PhaseReady, 6*time.Minute)
	store, err := pg.BarmanCloudV1().ObjectStores(ns).Get(t.Context(), "shop-backup", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c := store.Spec.Configuration; c.EndpointURL != S3TLSEndpoint || c.EndpointCA == nil || c.EndpointCA.Name != "s3-ca" || c.EndpointCA.Key != "ca.crt" {
		t.Fatalf("ObjectStore configuration %+v, want the TLS endpoint and endpointCA s3-ca/ca.crt", c)
	}
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 3*time.Minute)
	admin := kit.ConnectAs(t, ns, "shop", "orders", "app-orders-admin")
	if _, err := admin.Exec(t.Context(), "CREATE TABLE items (label text NOT NULL); INSERT INTO items VALUES ('before the backup')"); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	kit.WaitBackupCompleted(t, ns, kit.RequestBackup(t, ns, "shop", "through-the-ca"), 5*time.Minute)
	t.Logf("a base backup through the private CA in %s", time.Since(start).Round(time.Second))
	if _, err := admin.Exec(t.Context(), "INSERT INTO items VALUES ('after the backup')"); err != nil {
		t.Fatal(err)
	}
	kit.SwitchWAL(t, ns, "shop") // archived through the sidecar, over TLS

	start = time.Now()
	c := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: "copy", Namespace: ns},
		Spec: pgv1.PostgresClusterSpec{Class: class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete,
			Restore: &pgv1.RestoreSpec{Source: "shop"}},
	}
	if _, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kit.WaitCluster(t, ns, "copy", pgv1.PhaseReady, 8*time.Minute)
	t.Logf("restored through the private CA: %s from create to Ready", time.Since(start).Round(time.Second))
	rows, err := kit.ConnectAs(t, ns, "copy", "orders", "app-orders-rw").Query(t.Context(), "SELECT label FROM items ORDER BY label DESC")
	if err != nil {
		t.Fatal(err)
	}
	var labels []string
	for rows.Next() {
		var l string
		if err := rows.Scan(&l); err != nil {
			t.Fatal(err)
		}
		labels = append(labels, l)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(labels) != 2 || labels[0] != "before the backup" || labels[1] != "after the backup" {
		t.Fatalf("restored rows %q, want the one in the base backup and the one in the archived WAL", labels)
	}
}

// storeCAInto copies the CA that signed the node's S3 store's certificate
// into a Secret of ns (key ca.crt), as a platform hands its CA to a
// tenant, and returns it.
func storeCAInto(t *testing.T, ns, name string) []byte {
	t.Helper()
	src, err := kube.CoreV1().Secrets(S3Namespace).Get(t.Context(), S3TLSSecret, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ca := src.Data["ca.crt"]
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns}, Data: map[string][]byte{"ca.crt": ca}}
	if _, err := kube.CoreV1().Secrets(ns).Create(t.Context(), sec, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	return ca
}

// storeServesOnlyItsCA: the store's HTTPS port, reached as a Pod reaches
// it, presents a certificate for its Service name that this CA verifies
// and the host's trust store (the system roots, as in the sidecar's image)
// does not: what archives through it in the test went through endpointCA.
func storeServesOnlyItsCA(t *testing.T, ca []byte) {
	t.Helper()
	svc, err := kube.CoreV1().Services(S3Namespace).Get(t.Context(), s3Name, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	host := s3Name + "." + S3Namespace + ".svc.cluster.local"
	handshake := func(roots *x509.CertPool) error {
		raw, err := theNode.Dial(net.JoinHostPort(svc.Spec.ClusterIP, strconv.Itoa(s3TLSPort)))
		if err != nil {
			t.Fatal(err)
		}
		conn := tls.Client(raw, &tls.Config{ServerName: host, RootCAs: roots, MinVersion: tls.VersionTLS12})
		defer conn.Close()
		_ = conn.SetDeadline(time.Now().Add(10 * time.Second)) // a failed deadline shows as the handshake's error
		return conn.HandshakeContext(t.Context())
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("the store's ca.crt holds no certificate")
	}
	if err := handshake(pool); err != nil {
		t.Fatalf("the store's certificate is not verified by its CA: %v", err)
	}
	var unknown x509.UnknownAuthorityError
	if err := handshake(nil); !errors.As(err, &unknown) {
		t.Fatalf("with the system roots the handshake gave %v, want an unknown authority", err)
	}
}
