package e2e_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// No password reaches the operator's log, an Event, a status, or the
// Postgres server log — checked by grepping for every password we know.
func TestNoPasswordLeaks(t *testing.T) {
	ns := kit.Namespace(t)
	op := readyCluster(t, ns)
	kit.CreateDatabase(t, ns, "app", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "app", pgv1.PhaseReady, 120*time.Second)
	// A failing pass too: errors are where secrets usually slip out.
	kit.CreateDatabase(t, ns, "clash", "shop", pgv1.DatabaseSpec{Name: "orders"})
	kit.WaitDatabase(t, ns, "clash", pgv1.PhaseFailed, 60*time.Second)

	secrets, err := kube.CoreV1().Secrets(ns).List(t.Context(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var passwords []string
	for _, s := range secrets.Items {
		if p := string(s.Data["password"]); p != "" {
			passwords = append(passwords, p)
		}
	}
	if len(passwords) < 5 { // superuser, 2 roles for each of the two objects
		t.Fatalf("found only %d passwords: the check would prove little", len(passwords))
	}

	haystacks := map[string]string{"operator log": op.logs()}
	events, _ := kube.CoreV1().Events(ns).List(t.Context(), metav1.ListOptions{})
	haystacks["events"] = mustString(t, events)
	clusters, _ := pg.PostgresV1alpha1().PostgresClusters(ns).List(t.Context(), metav1.ListOptions{})
	haystacks["cluster status"] = mustString(t, clusters)
	dbs, _ := pg.PostgresV1alpha1().PostgresDatabases(ns).List(t.Context(), metav1.ListOptions{})
	haystacks["database status"] = mustString(t, dbs)
	cnpg, _ := pg.CNPGV1().Clusters(ns).List(t.Context(), metav1.ListOptions{})
	haystacks["CNPG clusters"] = mustString(t, cnpg)
	_ = filepath.WalkDir(sim.Dir(), func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(path, ".log") {
			if data, err := os.ReadFile(path); err == nil {
				haystacks["postgres log "+filepath.Base(filepath.Dir(path))] = string(data)
			}
		}
		return nil
	})
	if len(haystacks) < 6 {
		t.Errorf("no Postgres server log found under %s", sim.Dir())
	}
	for where, text := range haystacks {
		for _, p := range passwords {
			if strings.Contains(text, p) {
				t.Errorf("a password appears in the %s", where)
			}
		}
	}
}

func mustString(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
