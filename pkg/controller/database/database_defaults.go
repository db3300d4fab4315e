package database

import (
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/cluster"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
)

// A cluster's databaseDefaults are its class's merged with its own by the
// settings' one rule (cluster.MergeSettings, docs/adr/0008); a database
// of a PostgresDatabase overrides each (databases[]). Read at the top of
// the pass, from the caches, with the rest of the snapshot.

// databaseDefaults are the defaults cluster pc gives its databases, its
// class's merged with its own; nil when neither sets any.
func (c *Controller) databaseDefaults(pc *pgv1.PostgresCluster) (*pgv1.DatabaseDefaults, error) {
	if pc == nil {
		return nil, nil
	}
	class, err := informers.IgnoreNotFound(c.classes.Get(pc.Spec.Class))
	if err != nil {
		return nil, fmt.Errorf("read PostgresClusterClass %s: %w", pc.Spec.Class, err)
	}
	var classSettings pgv1.ClusterSettings
	if class != nil {
		classSettings = class.Spec.ClusterSettings
	}
	return cluster.MergeSettings(classSettings, pc.Spec.ClusterSettings).DatabaseDefaults, nil
}

// statementTimeoutOf is database d's default statement_timeout: its own,
// else its cluster's default (nil when neither sets one).
func (p *pass) statementTimeoutOf(d pgv1.DatabaseSpec) *metav1.Duration {
	if d.StatementTimeout != nil {
		return d.StatementTimeout
	}
	if p.obs.defaults != nil {
		return p.obs.defaults.StatementTimeout
	}
	return nil
}

// classHandler wakes the databases on the clusters of a class whose
// databaseDefaults changed: the class is not part of the cluster object,
// so no change of the cluster says so.
func (c *Controller) classHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*pgv1.PostgresClusterClass)
			n, ok2 := newObj.(*pgv1.PostgresClusterClass)
			if !ok1 || !ok2 || equality.Semantic.DeepEqual(o.Spec.DatabaseDefaults, n.Spec.DatabaseDefaults) {
				return
			}
			objs, err := c.clusterIndex.ByIndex(informers.ByClass, n.Name)
			if err != nil {
				return
			}
			for _, obj := range objs {
				if pc, ok := obj.(*pgv1.PostgresCluster); ok {
					for _, db := range informers.ListDatabasesOf(c.databaseIndex, pc.Namespace, pc.Name) {
						c.wake(db)
					}
				}
			}
		},
	}
}
