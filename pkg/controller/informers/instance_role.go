package informers

import (
	rbacv1 "k8s.io/api/rbac/v1"

	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
)

// InstanceRoleSelector selects the RBAC Roles CNPG makes for a
// cluster: its instance Role carries cnpg.io/cluster (a Pooler's Role
// carries no label).
const InstanceRoleSelector = cnpgverdict.ClusterLabel

// trimRole keeps of a Role what says which Secrets it lets read: its
// name, namespace, labels and one rule naming those Secrets
// (cnpgverdict.ReadableSecrets). The other rules are most of its size
// (every ConfigMap, backup and cluster verb CNPG's instance needs).
func (in *interner) trimRole(obj any) (any, error) {
	r, ok := obj.(*rbacv1.Role)
	if !ok {
		return in.trimForCache(obj)
	}
	kept := &rbacv1.Role{ObjectMeta: keptMeta(r.ObjectMeta)}
	if names := cnpgverdict.ReadableSecrets(r); len(names) > 0 {
		kept.Rules = []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get"}, ResourceNames: names}}
	}
	return in.trimForCache(kept)
}
