package commands

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefake "k8s.io/client-go/kubernetes/fake"
	kubetesting "k8s.io/client-go/testing"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	pgfake "github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// writes are every request of c's clients that changes something, as
// "verb resource[/subresource] name".
func writes(c *clients) []string {
	var out []string
	pg := c.pg.(withInstanceNames).Interface.(*pgfake.Clientset)
	for _, a := range append(pg.Actions(), c.kube.(*kubefake.Clientset).Actions()...) {
		switch a.GetVerb() {
		case "get", "list", "watch":
			continue
		}
		r := a.GetResource().Resource
		if a.GetSubresource() != "" {
			r += "/" + a.GetSubresource()
		}
		name := ""
		if p, ok := a.(kubetesting.PatchAction); ok {
			name = p.GetName()
		}
		out = append(out, a.GetVerb()+" "+r+" "+name)
	}
	return out
}

func patchOf(t *testing.T, c *clients) map[string]any {
	t.Helper()
	for _, a := range c.pg.(withInstanceNames).Interface.(*pgfake.Clientset).Actions() {
		if p, ok := a.(kubetesting.PatchAction); ok {
			var m map[string]any
			if err := json.Unmarshal(p.GetPatch(), &m); err != nil {
				t.Fatal(err)
			}
			return m
		}
	}
	t.Fatal("no patch")
	return nil
}

// promote sets status.targetPrimary of setpoint's CNPG Cluster through
// the status subresource, locked to the resourceVersion it read, and
// deletes nothing.
func TestPromoteSetsTargetPrimary(t *testing.T) {
	c := worlds()[0].clients()
	out, err := runIn(t, c, "promote", "shop", "shop-2")
	if err != nil {
		t.Fatal(err)
	}
	if w := writes(c); len(w) != 1 || w[0] != "patch clusters/status shop" {
		t.Fatalf("writes %v, want one patch of clusters/status shop", w)
	}
	p := patchOf(t, c)
	st, meta := p["status"].(map[string]any), p["metadata"].(map[string]any)
	ready := st["conditions"].([]any)[0].(map[string]any)
	if st["targetPrimary"] != "shop-2" || st["phase"] != "Switchover in progress" || meta["resourceVersion"] == nil ||
		ready["type"] != "Ready" || ready["status"] != "False" {
		t.Fatalf("patch %v", p)
	}
	if _, err := time.Parse(metav1.RFC3339Micro, st["targetPrimaryTimestamp"].(string)); err != nil {
		t.Fatalf("targetPrimaryTimestamp %v: %v", st["targetPrimaryTimestamp"], err)
	}
	if !strings.Contains(out, "switchover to shop-2 requested") {
		t.Fatalf("output %q", out)
	}
	cnpg, err := c.pg.CNPGV1().Clusters(fixtureNamespace).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil || cnpg.Status.TargetPrimary != "shop-2" {
		t.Fatalf("CNPG Cluster after promote: %+v, %v", cnpg.Status, err)
	}
}

// promote refuses what it cannot prove right, and writes nothing then.
func TestPromoteRefuses(t *testing.T) {
	for _, tc := range []struct {
		name, instance, want string
		change               func(c *clients)
	}{
		{"a PgBouncer Pod", "shop-pooler-rw-5c7", "is not an instance of shop (its instances: [shop-1 shop-2])", nil},
		{"no such Pod", "shop-9", "is not an instance of shop", nil},
		{"a switchover under way", "shop-2", "a switchover or failover of shop is under way", func(c *clients) {
			cl, _ := c.pg.CNPGV1().Clusters(fixtureNamespace).Get(t.Context(), "shop", metav1.GetOptions{})
			cl.Status.TargetPrimary = "shop-2"
			_, _ = c.pg.CNPGV1().Clusters(fixtureNamespace).UpdateStatus(t.Context(), cl, metav1.UpdateOptions{})
		}},
		{"a CNPG Cluster that is not setpoint's", "shop-2", "is not controlled by PostgresCluster shop", func(c *clients) {
			cl, _ := c.pg.CNPGV1().Clusters(fixtureNamespace).Get(t.Context(), "shop", metav1.GetOptions{})
			cl.OwnerReferences = nil
			_, _ = c.pg.CNPGV1().Clusters(fixtureNamespace).Update(t.Context(), cl, metav1.UpdateOptions{})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := worlds()[0].clients()
			if tc.change != nil {
				tc.change(c)
			}
			n := len(writes(c))
			_, err := runIn(t, c, "promote", "shop", tc.instance)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("promote %s: %v, want %q", tc.instance, err, tc.want)
			}
			if w := writes(c)[n:]; len(w) != 0 {
				t.Fatalf("a refused promote wrote %v", w)
			}
		})
	}
	// The primary already: nothing to do, and no error.
	c := worlds()[0].clients()
	if out, err := runIn(t, c, "promote", "shop", "shop-1"); err != nil || !strings.Contains(out, "is the primary of shop already") || len(writes(c)) != 0 {
		t.Fatalf("promote the primary: %q, %v, writes %v", out, err, writes(c))
	}
}

// restart is a request to setpoint: one annotation on the PostgresCluster,
// no write to a CNPG object, no Pod deleted.
func TestRestartAnnotatesThePostgresCluster(t *testing.T) {
	c := worlds()[0].clients()
	out, err := runIn(t, c, "restart", "shop", "--id", "2026-12-07T21:30:00Z")
	if err != nil {
		t.Fatal(err)
	}
	if w := writes(c); len(w) != 1 || w[0] != "patch postgresclusters shop" {
		t.Fatalf("writes %v, want one patch of the PostgresCluster", w)
	}
	pc, err := c.pg.PostgresV1alpha1().PostgresClusters(fixtureNamespace).Get(t.Context(), "shop", metav1.GetOptions{})
	if err != nil || pc.Annotations[pgv1.RestartAnnotation] != "2026-12-07T21:30:00Z" {
		t.Fatalf("PostgresCluster annotations %v, %v", pc.Annotations, err)
	}
	if !strings.Contains(out, "restart 2026-12-07T21:30:00Z requested") {
		t.Fatalf("output %q", out)
	}
}
