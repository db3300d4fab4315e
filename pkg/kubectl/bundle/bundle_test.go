package bundle

import (
	"bytes"
	"context"
	"encoding/base64"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	dynamicfake "k8s.io/client-go/dynamic/fake"
	kubefake "k8s.io/client-go/kubernetes/fake"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	pgscheme "github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/scheme"
	"github.com/setpoint-dev/setpoint/test/testkit"
)

const ns = "team"

// Passwords planted where a bundle must not carry them: in the cluster's
// Secrets (and in the connection strings inside them), in another team's
// Secret of the namespace, in an Event's message, in an annotation's
// connection URI and in log lines (URI and key=value forms).
const (
	rolePassword   = "Rw-pw/planted&<1>"
	superPassword  = "superuser-planted-2"
	otherPassword  = "other-team-planted-3"
	uriPassword    = "uri-only-planted-4"
	kwPassword     = "keyword-planted-5"
	eventLogSecret = rolePassword
)

func objMeta(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID("uid-" + name)}
}

func owned(name, owner string) metav1.ObjectMeta {
	m := objMeta(name)
	m.OwnerReferences = []metav1.OwnerReference{{Kind: "PostgresDatabase", Name: owner, UID: types.UID("uid-" + owner), Controller: ptr(true)}}
	return m
}

func ptr[T any](v T) *T { return &v }

func world() (kube []runtime.Object, custom []runtime.Object) {
	pc := &pgv1.PostgresCluster{ObjectMeta: objMeta("shop"), Spec: pgv1.PostgresClusterSpec{Class: "standard"},
		Status: pgv1.PostgresClusterStatus{Phase: pgv1.PhaseReady}}
	db := &pgv1.PostgresDatabase{ObjectMeta: objMeta("shop-app"),
		Spec: pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: "shop"}, Databases: []pgv1.DatabaseSpec{{Name: "orders"}}}}
	db.Annotations = map[string]string{"example.com/dsn": "postgresql://orders_rw:" + uriPassword + "@shop-rw:5432/orders"}
	otherDB := &pgv1.PostgresDatabase{ObjectMeta: objMeta("other-app"),
		Spec: pgv1.PostgresDatabaseSpec{ClusterRef: pgv1.ClusterReference{Name: "other"}, Databases: []pgv1.DatabaseSpec{{Name: "x"}}}}
	custom = []runtime.Object{pc, db, otherDB,
		&cnpgv1.Cluster{ObjectMeta: objMeta("shop"), Status: cnpgv1.ClusterStatus{Phase: "Cluster in healthy state"}},
		&cnpgv1.Pooler{ObjectMeta: objMeta("shop-pooler-rw"), Spec: cnpgv1.PoolerSpec{Cluster: cnpgv1.LocalObjectReference{Name: "shop"}}},
		&cnpgv1.Pooler{ObjectMeta: objMeta("other-pooler-rw"), Spec: cnpgv1.PoolerSpec{Cluster: cnpgv1.LocalObjectReference{Name: "other"}}},
		&cnpgv1.Backup{ObjectMeta: objMeta("shop-20261207"), Spec: cnpgv1.BackupSpec{Cluster: cnpgv1.LocalObjectReference{Name: "shop"}}},
	}
	rwSecret := &corev1.Secret{ObjectMeta: owned("shop-app-orders-rw", "shop-app"), Type: corev1.SecretTypeBasicAuth, Data: map[string][]byte{
		"username": []byte("orders_rw"), "password": []byte(rolePassword),
		"uri":    []byte("postgresql://orders_rw:" + rolePassword + "@shop-rw." + ns + ".svc:5432/orders"),
		"pgpass": []byte("shop-rw:5432:*:orders_rw:" + rolePassword + "\n")}}
	super := &corev1.Secret{ObjectMeta: objMeta("shop-superuser"), Data: map[string][]byte{"username": []byte("postgres"), "password": []byte(superPassword)}}
	super.Labels = map[string]string{setpointClusterLabel: "shop"}
	other := &corev1.Secret{ObjectMeta: objMeta("other-team-creds"), Data: map[string][]byte{"token": []byte(otherPassword)}}
	pod := &corev1.Pod{ObjectMeta: objMeta("shop-1"), Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "postgres",
		Env: []corev1.EnvVar{{Name: "PGPASSWORD", Value: superPassword}}}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning}}
	pod.Labels = map[string]string{cnpgClusterLabel: "shop", "cnpg.io/instanceRole": "primary"}
	pgb := &corev1.Pod{ObjectMeta: objMeta("shop-pooler-rw-abc"), Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "pgbouncer"}}}}
	pgb.Labels = map[string]string{cnpgPoolerLabel: "shop-pooler-rw"}
	otherPod := &corev1.Pod{ObjectMeta: objMeta("other-1"), Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "postgres"}}}}
	otherPod.Labels = map[string]string{cnpgClusterLabel: "other"}
	op := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "setpoint-system", Name: "setpoint-7d9", Labels: map[string]string{"app.kubernetes.io/name": "setpoint"}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager"}}}}
	event := &corev1.Event{ObjectMeta: objMeta("shop-app.1"), InvolvedObject: corev1.ObjectReference{Kind: "PostgresDatabase", Name: "shop-app"},
		Type: "Warning", Reason: "RoleRefused", Message: "a careless message with " + eventLogSecret, LastTimestamp: metav1.Now()}
	otherEvent := &corev1.Event{ObjectMeta: objMeta("other-app.1"), InvolvedObject: corev1.ObjectReference{Kind: "PostgresDatabase", Name: "other-app"},
		Reason: "OtherTeamsBusiness"}
	kube = []runtime.Object{rwSecret, super, other, pod, pgb, otherPod, op, event, otherEvent}
	return kube, custom
}

// logs answers each container with lines of its own, some carrying a
// password.
func logs(_ context.Context, namespace, pod string, opts *corev1.PodLogOptions) ([]byte, error) {
	if namespace == "setpoint-system" {
		return []byte(`I1207 "Reconciled" postgrescluster="team/shop"
I1207 "Reconciled" postgrescluster="elsewhere/theirs"
I1207 "connecting" dsn="host=shop-rw password=` + kwPassword + ` dbname=orders" db="team/shop-app"
`), nil
	}
	return []byte(pod + "/" + opts.Container + ": connection from postgresql://orders_rw:" + uriPassword + "@10.0.0.1/orders\n" +
		pod + ": LOG: checkpoint complete; password " + superPassword + "\n"), nil
}

func collect(t *testing.T) map[string]string {
	t.Helper()
	kube, custom := world()
	c := Collector{Kube: kubefake.NewClientset(kube...), Dynamic: dynamicfake.NewSimpleDynamicClient(pgscheme.Scheme, custom...),
		Namespace: ns, OperatorNamespace: "setpoint-system", OperatorSelector: "app.kubernetes.io/name=setpoint", readLog: logs}
	b, err := c.Collect(t.Context(), "shop")
	if err != nil {
		t.Fatal(err)
	}
	b.Add("status.txt", []byte("a screen that quotes "+rolePassword))
	var out bytes.Buffer
	if err := b.WriteTarGz(&out, "bundle", "shop", ns, time.Date(2026, 12, 7, 21, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	return testkit.Bundle(t, out.String())
}

// The bundle holds no planted password in any form, anywhere — a grep of
// every file for each.
func TestBundleHoldsNoPassword(t *testing.T) {
	files := collect(t)
	for _, pw := range []string{rolePassword, superPassword, otherPassword, uriPassword, kwPassword} {
		for _, form := range []string{pw, base64.StdEncoding.EncodeToString([]byte(pw)), strings.ReplaceAll(pw, "&", `\u0026`)} {
			for name, data := range files {
				if strings.Contains(data, form) {
					t.Errorf("%s holds the planted password %q (as %q)", name, pw, form)
				}
			}
		}
	}
	if !strings.Contains(files["logs/pods/shop-1/postgres.log"], "postgresql://orders_rw:[REDACTED]@10.0.0.1/orders") ||
		!strings.Contains(files["logs/operator/setpoint-7d9.log"], "password=[REDACTED] dbname=orders") {
		t.Errorf("the redacted lines are not there as redacted:\n%s\n%s", files["logs/pods/shop-1/postgres.log"], files["logs/operator/setpoint-7d9.log"])
	}
}

// The bundle holds the cluster's objects and nobody else's; Secrets by
// name and keys; Pods' states without their spec; the operator's lines
// about the namespace alone.
func TestBundleHoldsTheClusterAndNothingElse(t *testing.T) {
	files := collect(t)
	for _, name := range []string{"README.txt", "postgresclusters/shop.yaml", "postgresdatabases/shop-app.yaml", "cnpg/clusters/shop.yaml",
		"cnpg/poolers/shop-pooler-rw.yaml", "cnpg/backups/shop-20261207.yaml", "secrets.yaml", "pods.yaml", "events.yaml",
		"logs/pods/shop-1/postgres.log", "logs/pods/shop-pooler-rw-abc/pgbouncer.log", "logs/operator/setpoint-7d9.log", "status.txt"} {
		if _, ok := files[name]; !ok {
			t.Errorf("bundle lacks %s", name)
		}
	}
	for name := range files {
		if strings.Contains(name, "other") {
			t.Errorf("bundle holds %s, another cluster's", name)
		}
	}
	secrets := files["secrets.yaml"]
	for _, want := range []string{"name: shop-app-orders-rw", "- password\n", "- pgpass\n", "- uri\n", "name: shop-superuser"} {
		if !strings.Contains(secrets, want) {
			t.Errorf("secrets.yaml lacks %q:\n%s", want, secrets)
		}
	}
	if strings.Contains(secrets, "other-team-creds") {
		t.Errorf("secrets.yaml lists another team's Secret:\n%s", secrets)
	}
	if pods := files["pods.yaml"]; !strings.Contains(pods, "name: shop-1") || strings.Contains(pods, "PGPASSWORD") || strings.Contains(pods, "other-1") {
		t.Errorf("pods.yaml:\n%s", pods)
	}
	if ev := files["events.yaml"]; !strings.Contains(ev, "RoleRefused") || strings.Contains(ev, "OtherTeamsBusiness") {
		t.Errorf("events.yaml:\n%s", ev)
	}
	if op := files["logs/operator/setpoint-7d9.log"]; strings.Contains(op, "elsewhere/theirs") || !strings.Contains(op, `postgrescluster="team/shop"`) {
		t.Errorf("operator log:\n%s", op)
	}
	if strings.Contains(files["postgresclusters/shop.yaml"], "managedFields") {
		t.Error("objects keep their managedFields")
	}
}
