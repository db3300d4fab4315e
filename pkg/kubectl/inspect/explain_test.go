package inspect

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// The first unmet step is named with the DatabaseRole CNPG has not
// applied and CNPG's own message; the applied ones are not blamed.
func TestExplainNamesTheRoleCNPGDidNotApply(t *testing.T) {
	db := database(pgv1.PhaseProvisioning,
		cond("SecretsReady", "True", "SecretsReady", ""),
		cond("ClusterReady", "True", "ClusterReady", ""),
		cond("ConfigMapsReady", "True", "ConfigMapsReady", ""),
		cond("RolesReady", "False", "RoleNotApplied", "1 role(s) not applied"),
		cond("Ready", "False", "RoleNotApplied", "RolesReady: 1 role(s) not applied"))
	r := reader(db,
		role("shop.order-items-admin", ptr(true), ""),
		role("shop.order-items-rw", ptr(false), `password authentication: role "order_items_rw" cannot be altered`),
	)
	e, err := r.ExplainDatabase(t.Context(), "shop-app")
	if err != nil {
		t.Fatal(err)
	}
	if e.Ready || e.Condition == nil || e.Condition.Type != "RolesReady" || e.Condition.Reason != "RoleNotApplied" {
		t.Fatalf("blocked at %+v, want RolesReady RoleNotApplied", e.Condition)
	}
	want := []Cause{
		{Object: "DatabaseRole shop.order-items-rw", Status: `not applied: password authentication: role "order_items_rw" cannot be altered`},
		{Object: "DatabaseRole shop.order-items-ro", Status: "not found"},
	}
	if len(e.Causes) != len(want) || e.Causes[0] != want[0] || e.Causes[1] != want[1] {
		t.Fatalf("causes %+v, want %+v", e.Causes, want)
	}
	if e.Advice != AdviceFor(pgv1.ConditionRolesReady, pgv1.ReasonRoleNotApplied) {
		t.Fatalf("advice %q, want RoleNotApplied's", e.Advice)
	}
}

// A database waiting for its cluster explains the cluster in turn, down
// to what CNPG says of its Cluster.
func TestExplainFollowsTheClusterToCNPG(t *testing.T) {
	db := database(pgv1.PhasePending,
		cond("SecretsReady", "True", "SecretsReady", ""),
		cond("ClusterReady", "False", "ClusterNotReady", "PostgresCluster shop is Provisioning"),
		cond("Ready", "False", "ClusterNotReady", "ClusterReady: PostgresCluster shop is Provisioning"))
	pc := cluster(pgv1.PhaseProvisioning,
		cond("SecretReady", "True", "SecretReady", ""),
		cond("ObjectStoreReady", "True", "NotConfigured", ""),
		cond("ProvisionerReady", "False", "CNPGProvisioning", `CNPG: "Setting up primary"`),
		cond("Ready", "False", "CNPGProvisioning", "provisioner: ..."))
	cnpg := &cnpgv1.Cluster{ObjectMeta: meta("shop", 1),
		Status: cnpgv1.ClusterStatus{Phase: "Setting up primary", PhaseReason: "Creating primary instance shop-1", Instances: 2}}
	e, err := reader(db, pc, cnpg).ExplainDatabase(t.Context(), "shop-app")
	if err != nil {
		t.Fatal(err)
	}
	if e.Condition.Type != "ClusterReady" || e.Cluster == nil {
		t.Fatalf("explanation %+v: want ClusterReady with the cluster explained", e)
	}
	if got := e.Causes[0]; got.Object != "PostgresCluster shop" || !strings.HasPrefix(got.Status, "Provisioning (CNPGProvisioning:") {
		t.Fatalf("cause %+v", got)
	}
	c := e.Cluster
	if c.Condition.Type != "ProvisionerReady" || len(c.Causes) != 1 {
		t.Fatalf("cluster explanation %+v", c)
	}
	wantCNPG := Cause{Object: "Cluster.postgresql.cnpg.io shop", Status: `"Setting up primary" (0/2 instances ready): Creating primary instance shop-1`}
	if c.Causes[0] != wantCNPG {
		t.Fatalf("CNPG cause %+v, want %+v", c.Causes[0], wantCNPG)
	}
	if c.Advice != AdviceFor(pgv1.ConditionProvisionerReady, pgv1.ReasonCNPGProvisioning) || e.Advice != AdviceFor(pgv1.ConditionClusterReady, pgv1.ReasonClusterNotReady) {
		t.Fatalf("advice %q / %q", e.Advice, c.Advice)
	}
	var out strings.Builder
	if err := WriteExplanation(&out, e); err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{
		"PostgresDatabase default/shop-app is not Ready: Pending",
		"  blocked at:  ClusterReady=False ClusterNotReady: PostgresCluster shop is Provisioning",
		"    PostgresCluster default/shop is not Ready: Provisioning",
		`      caused by:   Cluster.postgresql.cnpg.io shop: "Setting up primary" (0/2 instances ready): Creating primary instance shop-1`,
	} {
		if !strings.Contains(out.String(), line+"\n") {
			t.Errorf("text lacks line %q:\n%s", line, out.String())
		}
	}
}

func TestExplainMissingCluster(t *testing.T) {
	db := database(pgv1.PhasePending,
		cond("SecretsReady", "True", "SecretsReady", ""),
		cond("ClusterReady", "False", "ClusterNotFound", `PostgresCluster "shop" not found`))
	e, err := reader(db).ExplainDatabase(t.Context(), "shop-app")
	if err != nil {
		t.Fatal(err)
	}
	if len(e.Causes) != 1 || e.Causes[0] != (Cause{Object: "PostgresCluster shop", Status: "not found"}) || e.Cluster != nil {
		t.Fatalf("explanation %+v", e)
	}
	if !strings.Contains(e.Advice, "create the PostgresCluster") {
		t.Fatalf("advice %q", e.Advice)
	}
}

// Ready at the current generation is Ready; at an older one it is not
// yet: the operator has not looked at the latest spec.
func TestExplainReadyOnlyAtCurrentGeneration(t *testing.T) {
	db := database(pgv1.PhaseReady, cond("Ready", "True", "AllReady", ""))
	e, err := reader(db).ExplainDatabase(t.Context(), "shop-app")
	if err != nil || !e.Ready {
		t.Fatalf("explanation %+v, %v: want Ready", e, err)
	}
	db.Generation = 2
	e, err = reader(db).ExplainDatabase(t.Context(), "shop-app")
	if err != nil || e.Ready || !strings.Contains(e.Advice, "older generation") {
		t.Fatalf("explanation %+v, %v: want not Ready, older generation", e, err)
	}
}

// The chain is walked in pipeline order, not in the order status lists
// the conditions.
func TestFirstUnmetFollowsChainOrder(t *testing.T) {
	conds := []metav1.Condition{
		cond("PrivilegesReady", "False", "GrantFailed", ""),
		cond("SecretsReady", "False", "ExternalSecretNotFound", ""),
	}
	c, ok := firstUnmet(conds, DatabaseChain)
	if !ok || c.Type != "SecretsReady" {
		t.Fatalf("first unmet %+v, want SecretsReady", c)
	}
}
