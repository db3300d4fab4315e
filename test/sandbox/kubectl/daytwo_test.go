package kubectl_test

import (
	"context"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/setpoint-dev/setpoint/test/testkit"
)

// report on a real API server: the objects the operator and the stand-in
// wrote, read whole through the dynamic client, and not one value of the
// namespace's Secrets (the roles', the superuser's, CNPG's CA keys).
func (w *world) testReport(t *testing.T) {
	res := w.run(t, nil, "report", "shop", "-f", "-")
	if res.err != nil {
		t.Fatalf("report: %v\n%s", res.err, res.errOut)
	}
	files := testkit.Bundle(t, res.out)
	for _, want := range []string{"README.txt", "status.txt", "explain.txt", "postgresclusters/shop.yaml",
		"postgresdatabases/shop-app.yaml", "cnpg/clusters/shop.yaml", "cnpg/poolers/shop-pooler-rw.yaml", "secrets.yaml", "events.yaml"} {
		if _, ok := files[want]; !ok {
			t.Errorf("bundle lacks %s", want)
		}
	}
	if !strings.Contains(files["status.txt"], "PostgresCluster default/shop (class standard): Ready") ||
		!strings.Contains(files["cnpg/clusters/shop.yaml"], "kind: Cluster") {
		t.Errorf("status.txt:\n%s\ncnpg/clusters/shop.yaml:\n%s", files["status.txt"], files["cnpg/clusters/shop.yaml"])
	}
	list, err := w.kube.CoreV1().Secrets(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	secrets := map[string]map[string][]byte{}
	for _, s := range list.Items {
		secrets[s.Name] = s.Data
		if strings.HasPrefix(s.Name, "shop-app-") && !strings.Contains(files["secrets.yaml"], "name: "+s.Name+"\n") {
			t.Errorf("secrets.yaml does not list the database's Secret %s", s.Name)
		}
	}
	found, looked := testkit.SecretValuesIn(files, secrets)
	if looked == 0 {
		t.Fatal("no Secret value to look for: the check proved nothing")
	}
	for _, f := range found {
		t.Errorf("the bundle holds a Secret's value: %s", f)
	}
}

// restart is a request the operator carries to its CNPG Cluster: CNPG's
// restartedAt appears there with the request's id, written by setpoint's
// apply (the stand-in restarts nothing; the real tier shows CNPG acting).
func (w *world) testRestart(t *testing.T) {
	id := "2026-12-07T21:40:00Z"
	if res := w.run(t, nil, "restart", "shop", "--id", id); res.err != nil {
		t.Fatalf("restart: %v\n%s", res.err, res.errOut)
	}
	var got string
	err := wait.PollUntilContextTimeout(t.Context(), 200*time.Millisecond, time.Minute, true, func(ctx context.Context) (bool, error) {
		cl, err := w.pg.CNPGV1().Clusters(ns).Get(ctx, "shop", metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		got = cl.Annotations["kubectl.kubernetes.io/restartedAt"]
		return got == id, nil
	})
	if err != nil {
		t.Fatalf("the CNPG Cluster's restartedAt is %q, want %q: %v", got, id, err)
	}
}
