package cluster

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// placedSecrets finds, for the snapshot, the generated credential Secrets
// of dbs that the database controller has created: cached (they carry our
// labels) and controlled by the PostgresDatabase whose spec implies them,
// one that carries its finalizer (the database controller creates the
// Secrets while it adds the finalizer; a claim before it is in place
// could leave roles nobody drops).
// A role claim needs nothing more (intentOf), so a new database's first
// status write is not what makes its cluster hand its roles to CNPG.
func (c *Controller) placedSecrets(ns string, dbs []*pgv1.PostgresDatabase) (map[string]types.UID, error) {
	placed := map[string]types.UID{}
	for _, db := range dbs {
		if !mayClaim(db) {
			continue // its cleanup is not guaranteed yet: no claim
		}
		for _, d := range db.Spec.Databases {
			n := controller.NamesOf(db.Name, d.Name)
			for _, name := range []string{n.AdminSecret, n.RWSecret, n.ROSecret} {
				s, err := controller.IgnoreNotFound(c.secrets.Secrets(ns).Get(name))
				if err != nil {
					return nil, err
				}
				if s != nil && controller.IsControlledBy(s, db.UID) {
					placed[name] = db.UID
				}
			}
		}
	}
	return placed, nil
}

// mayClaim: db carries the finalizer that guarantees its roles' cleanup.
func mayClaim(db *pgv1.PostgresDatabase) bool {
	return slices.Contains(db.Finalizers, controller.DatabaseFinalizer)
}

// placedFor is intentOf's placed for db.
func (o *observation) placedFor(db *pgv1.PostgresDatabase) func(string) bool {
	return func(secret string) bool { uid, ok := o.placed[secret]; return ok && uid == db.UID }
}

// clusterOfCredential maps a PostgresDatabase's credential Secret to the
// cluster of that database: its creation is a role claim (intentOf).
func (c *Controller) clusterOfCredential(obj any) []workqueue.Key {
	s, ok := obj.(*corev1.Secret)
	if !ok || s.Labels[controller.DatabaseLabel] == "" {
		return nil
	}
	o, exists, err := c.databases.GetByKey(s.Namespace + "/" + s.Labels[controller.DatabaseLabel])
	db, isDB := o.(*pgv1.PostgresDatabase)
	if err != nil || !exists || !isDB || !controller.IsControlledBy(s, db.UID) {
		return nil
	}
	return clusterOfDatabase(db)
}

// controllerChanged: a Secret changed hands (adopted after a Retain
// deletion, or released); other updates claim nothing new.
func controllerChanged(oldObj, newObj any) bool {
	o, ok1 := oldObj.(*corev1.Secret)
	n, ok2 := newObj.(*corev1.Secret)
	if !ok1 || !ok2 {
		return true
	}
	or, nr := metav1.GetControllerOfNoCopy(o), metav1.GetControllerOfNoCopy(n)
	return (or == nil) != (nr == nil) || or != nil && or.UID != nr.UID
}
