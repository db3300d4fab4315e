package naming

import "testing"

// A database of the cluster's own namespace keeps its names; one of
// another namespace has its Postgres names and its CNPG Database
// prefixed, its Secrets and ConfigMap (in its own namespace) not.
func TestTenantDatabase(t *testing.T) {
	if got, want := TenantDatabase("db", "db", "shop", "orders"), Database("shop", "orders"); got != want {
		t.Fatalf("own namespace: %+v, want %+v", got, want)
	}
	n := TenantDatabase("team-a", "platform", "shop", "order_items")
	for got, want := range map[string]string{
		n.DB: "team_a_order_items", n.AdminRole: "team_a_order_items_admin", n.RWRole: "team_a_order_items_rw",
		n.RORole: "team_a_order_items_ro", n.Role("reporter"): "team_a_order_items_reporter",
		n.CNPG: "team-a.shop-order-items", n.AdminSecret: "shop-order-items-admin",
		n.Secret("reporter"): "shop-order-items-reporter", n.ConfigMap: "shop-order-items-config",
	} {
		if got != want {
			t.Errorf("got %q, want %q", got, want)
		}
	}
	if p := TenantPrefix("team-a", "team-a"); p != "" {
		t.Errorf("own prefix %q", p)
	}
}
