package cnpgverdict

import (
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
)

// CNPG's operator keeps one RBAC Role per cluster for its instance
// manager, named after the cluster and labelled ClusterLabel with it
// (createOrPatchRole, specs.CreateRole). One of its rules lets the
// instance get the Secrets it needs, the password Secret of every
// DatabaseRole on the cluster among them: the moment a role's Secret
// appears there, the instance manager may read it, and a retry of a role
// refused for it (RetryDue) can succeed.

// ClusterLabel is the label CNPG puts on what it makes for a cluster,
// its instance Role included, with the cluster's name.
const ClusterLabel = "cnpg.io/cluster"

// InstanceRoleCluster is the cluster whose instance Role r is; ok is
// false for another Role (a Pooler's carries the Pooler's name).
func InstanceRoleCluster(r *rbacv1.Role) (cluster string, ok bool) {
	if r == nil {
		return "", false
	}
	c := r.Labels[ClusterLabel]
	return c, c != "" && c == r.Name
}

// ReadableSecrets are the Secrets r lets its subject get, sorted: the
// names of its rules on core secrets with get (or every verb). A rule on
// every Secret names none and is not counted: CNPG's never is one.
func ReadableSecrets(r *rbacv1.Role) []string {
	if r == nil {
		return nil
	}
	var out []string
	for _, rule := range r.Rules {
		if grantsSecretGet(rule) {
			out = append(out, rule.ResourceNames...)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func grantsSecretGet(rule rbacv1.PolicyRule) bool {
	return anyOf(rule.APIGroups, "") && anyOf(rule.Resources, "secrets") && anyOf(rule.Verbs, "get")
}

// anyOf: list holds v or RBAC's wildcard.
func anyOf(list []string, v string) bool {
	return slices.Contains(list, v) || slices.Contains(list, rbacv1.ResourceAll)
}

// MayRead reports whether instance Role r lets the instance get secret;
// false when r is not known (nil).
func MayRead(r *rbacv1.Role, secret string) bool {
	_, found := slices.BinarySearch(ReadableSecrets(r), secret)
	return secret != "" && found
}

// NewlyReadable are the Secrets cur lets read and old did not (old nil:
// none did), sorted.
func NewlyReadable(old, cur *rbacv1.Role) []string {
	before := ReadableSecrets(old)
	var out []string
	for _, s := range ReadableSecrets(cur) {
		if _, found := slices.BinarySearch(before, s); !found {
			out = append(out, s)
		}
	}
	return out
}
