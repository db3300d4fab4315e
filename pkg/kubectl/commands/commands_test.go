package commands

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/kubectl/inspect"
)

// The manifest carries the source's class and settings and names the
// folder the source archives to (its serverName, which differs from its
// name after a re-creation), not merely its name.
func TestRestoreManifest(t *testing.T) {
	src := &pgv1.PostgresCluster{ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "team"},
		Spec: pgv1.PostgresClusterSpec{Class: "standard", ClusterSettings: pgv1.ClusterSettings{Instances: ptr(int32(2))},
			ClusterDeletionPolicy: pgv1.DeletionPolicyDelete},
		Status: pgv1.PostgresClusterStatus{BackupStatus: &pgv1.BackupStatus{ServerName: "shop-5f0c7a92"}}}
	pc, err := RestoreManifest(src, "shop-copy", "2026-11-30T17:45:00+01:00", "")
	if err != nil {
		t.Fatal(err)
	}
	r := pc.Spec.Restore
	if pc.Name != "shop-copy" || pc.Namespace != "team" || pc.Spec.Class != "standard" || *pc.Spec.Instances != 2 ||
		pc.Spec.ClusterDeletionPolicy != "" || r.Source != "shop-5f0c7a92" || r.TargetTime.UTC().Format("15:04") != "16:45" {
		t.Fatalf("manifest %+v restore %+v", pc, r)
	}
	if _, err := RestoreManifest(src, "x", "yesterday", ""); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
		t.Fatalf("bad --to: %v", err)
	}
}

// psql learns everything from libpq's environment: the Service's name for
// verify-full, the local end of the forward as the address.
func TestPsqlEnv(t *testing.T) {
	c := &inspect.Connection{Host: "shop-rw.default.svc", Port: "5432", Database: "orders", User: "orders_rw",
		Password: "secret", SSLMode: "verify-full"}
	got := strings.Join(psqlEnv(c, 40001, "/tmp/x"), " ")
	want := "PGHOST=shop-rw.default.svc PGHOSTADDR=127.0.0.1 PGPORT=40001 PGDATABASE=orders PGUSER=orders_rw " +
		"PGSSLMODE=verify-full PGSSLROOTCERT=/tmp/x/ca.crt PGPASSWORD=secret"
	if got != want {
		t.Fatalf("env %s, want %s", got, want)
	}
	// By certificate: libpq's certificate and key files, no password.
	c.Password, c.CertSecret = "", "shop.orders-rw-client-cert"
	got = strings.Join(psqlEnv(c, 40001, "/tmp/x"), " ")
	want = "PGHOST=shop-rw.default.svc PGHOSTADDR=127.0.0.1 PGPORT=40001 PGDATABASE=orders PGUSER=orders_rw " +
		"PGSSLMODE=verify-full PGSSLROOTCERT=/tmp/x/ca.crt PGSSLCERT=/tmp/x/tls.crt PGSSLKEY=/tmp/x/tls.key"
	if got != want {
		t.Fatalf("env by certificate %s, want %s", got, want)
	}
}

// A nil value removes the annotation (JSON merge patch null).
func TestAnnotationPatch(t *testing.T) {
	id := "r1"
	b, err := annotationPatch(map[string]*string{pgv1.RotatePasswordsAnnotation: &id, pgv1.RotatePasswordsRolesAnnotation: nil})
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]map[string]map[string]*string
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	ann := m["metadata"]["annotations"]
	if v, ok := ann[pgv1.RotatePasswordsRolesAnnotation]; !ok || v != nil || *ann[pgv1.RotatePasswordsAnnotation] != "r1" {
		t.Fatalf("patch %s", b)
	}
}

func TestServiceOf(t *testing.T) {
	svc, ns, err := serviceOf("shop-pooler-rw.team.svc")
	if err != nil || svc != "shop-pooler-rw" || ns != "team" {
		t.Fatalf("%s %s %v", svc, ns, err)
	}
}

func ptr[T any](v T) *T { return &v }
