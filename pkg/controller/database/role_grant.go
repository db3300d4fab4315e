package database

import (
	"cmp"
	"slices"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/setpoint-dev/setpoint/pkg/controller/cnpgverdict"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// A new role's DatabaseRole races CNPG's own RBAC (cnpgverdict.RetryDue):
// the instance manager is refused its password Secret until CNPG's
// operator adds the Secret to the cluster's instance Role, and then
// tries again only in 30 s. setpoint retries the role itself, and is told
// when: a change of the instance Role wakes, at once, the
// PostgresDatabase of each Secret the Role newly lets read, whose pass
// retries its refused role (retryRole, cnpgverdict.RetryDueGranted). The
// paced retry stays for what no Role change announces (an external
// Secret, a missed event).

// instanceRoleHandler routes an instance Role's creation or update to
// the PostgresDatabases whose Secrets it newly names, ahead of first
// passes (workqueue.AddUrgent), as CNPG's reports are.
func (c *Controller) instanceRoleHandler() cache.ResourceEventHandler {
	route := func(oldObj, newObj any) {
		old, _ := oldObj.(*rbacv1.Role)
		cur, ok := newObj.(*rbacv1.Role)
		if !ok {
			return
		}
		for _, k := range nudged(old, cur, c.secretOwner) {
			c.queue.AddUrgent(k)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { route(nil, obj) },
		UpdateFunc: route,
	}
}

// nudged are the PostgresDatabases to wake for instance Role cur, which
// was old before (nil: it is new): the owners (ownerOf) of the Secrets
// cur lets the instance read and old did not, once each, sorted. Not an
// instance Role (a Pooler's): none.
func nudged(old, cur *rbacv1.Role, ownerOf func(namespace, secret string) (workqueue.Key, bool)) []workqueue.Key {
	if _, ok := cnpgverdict.InstanceRoleCluster(cur); !ok {
		return nil
	}
	var out []workqueue.Key
	for _, s := range cnpgverdict.NewlyReadable(old, cur) {
		if k, ok := ownerOf(cur.Namespace, s); ok && !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	slices.SortFunc(out, func(a, b workqueue.Key) int { return cmp.Compare(a.String(), b.String()) })
	return out
}

// secretOwner is the PostgresDatabase controlling our cached Secret
// namespace/name, when the cache holds it with the owner's UID (a Secret
// left by a deleted owner of the same name wakes nobody).
func (c *Controller) secretOwner(namespace, name string) (workqueue.Key, bool) {
	s, err := c.secrets.Secrets(namespace).Get(name)
	if err != nil {
		return workqueue.Key{}, false
	}
	ref := metav1.GetControllerOfNoCopy(s)
	if ref == nil || ref.Kind != gvk.Kind {
		return workqueue.Key{}, false
	}
	if uid, found := c.uidOf(namespace, ref.Name); !found || uid != ref.UID {
		return workqueue.Key{}, false
	}
	return workqueue.Key{Namespace: namespace, Name: ref.Name}, true
}
