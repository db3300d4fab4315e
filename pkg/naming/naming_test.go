package naming

import (
	"slices"
	"testing"
)

// Names are spelled out here, not derived: objects with these names exist
// in clusters, and a renamed child would be a new object beside the old.
func TestNamesArePinned(t *testing.T) {
	t.Parallel()
	db := Database("shop", "order_items")
	for _, c := range [][2]string{
		{Host("ns", RWService("pg")), "pg-rw.ns.svc"},
		{ROService("pg"), "pg-ro"},
		{RService("pg"), "pg-r"},
		{CASecret("pg"), "pg-ca"},
		{ServerCASecret("pg"), "pg-server-ca"},
		{ClientCASecret("pg"), "pg-client-ca"},
		{ReplicationTLSSecret("pg"), "pg-replication-tls"},
		{SuperuserSecret("pg"), "pg-superuser"},
		{ObjectStore("pg"), "pg-backup"},
		{ObjectStoreCluster("pg-backup"), "pg"},
		{MonitorSecret("pg"), "pg-monitor"},
		{RoleObject("pg", "order_items_rw"), "pg.order-items-rw"},
		{ClientCertSecret("pg.order-items-admin"), "pg.order-items-admin-client-cert"},
		{db.CNPG, "shop-order-items"},
		{db.ConfigMap, "shop-order-items-config"},
		{db.AdminRole + " " + db.AdminSecret, "order_items_admin shop-order-items-admin"},
	} {
		if c[0] != c[1] {
			t.Errorf("got %q, want %q", c[0], c[1])
		}
	}
	if got := Poolers("pg"); !slices.Equal(got, []string{"pg-pooler-rw", "pg-pooler-ro"}) {
		t.Errorf("Poolers = %v", got)
	}
}

// The fixed roles' keys are RoleKeys of their names: the plugin and the
// operator find every role's keys one way.
func TestRoleKeysOfTheFixedRoles(t *testing.T) {
	for name, want := range map[string][3]string{
		"admin": {KeyAdminUser, KeyAdminSecret, KeyAdminCertSecret},
		"rw":    {KeyRWUser, KeyRWSecret, KeyRWCertSecret},
		"ro":    {KeyROUser, KeyROSecret, KeyROCertSecret},
	} {
		if u, s, c := RoleKeys(name); [3]string{u, s, c} != want {
			t.Errorf("RoleKeys(%q) = %s %s %s, want %v", name, u, s, c, want)
		}
	}
	// An extra role's keys collide with none of the database's other keys.
	u, s, c := RoleKeys("migrator")
	for _, k := range []string{KeyHost, KeyROHost, KeyPort, KeyPoolerHost, KeyPoolerROHost, KeyCASecret, KeyCASecretKey, KeySSLMode, KeyDatabase, KeyAuthentication} {
		if k == u || k == s || k == c {
			t.Errorf("extra role key %s collides", k)
		}
	}
}
