package informers

import (
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
)

// The cache keeps of an instance Role its identity and the Secrets it
// lets read, nothing of its other rules, and reads the same afterwards.
func TestTrimRoleKeepsTheReadableSecrets(t *testing.T) {
	t.Parallel()
	r := &rbacv1.Role{
		ObjectMeta: metav1.ObjectMeta{Name: "shop", Namespace: "ns", ResourceVersion: "7",
			Labels: map[string]string{cnpgverdict.ClusterLabel: "shop"}, Annotations: map[string]string{"a": "b"}},
		Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get"}, ResourceNames: []string{"shop"}},
			{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "watch"}, ResourceNames: []string{"shop-ca", "app-orders-rw"}},
			{APIGroups: []string{"postgresql.cnpg.io"}, Resources: []string{"clusters"}, Verbs: []string{"get"}, ResourceNames: []string{"shop"}},
		},
	}
	want := cnpgverdict.ReadableSecrets(r)
	out, err := (&interner{}).trimRole(r)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*rbacv1.Role)
	if len(got.Rules) != 1 || !slices.Equal(cnpgverdict.ReadableSecrets(got), want) {
		t.Errorf("trimmed rules %+v; want one naming %v", got.Rules, want)
	}
	if c, ok := cnpgverdict.InstanceRoleCluster(got); !ok || c != "shop" || got.Namespace != "ns" || got.ResourceVersion != "7" {
		t.Errorf("trimmed metadata %+v", got.ObjectMeta)
	}
	if got.Annotations != nil {
		t.Errorf("annotations kept: %v", got.Annotations)
	}
}
