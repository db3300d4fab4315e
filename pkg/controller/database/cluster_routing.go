package database

import (
	"reflect"
	"slices"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// clusterHandler routes PostgresCluster events to the databases on the
// cluster, and only when something a database pass reads changed (see
// clusterView): a new cluster passes through several phases and writes
// its status several times on the way to Ready, and each write woke all
// of its databases for a pass that found them still waiting. Databases
// being deleted read the cluster's phase for their messages and are woken
// by any change.
func (c *Controller) clusterHandler() cache.ResourceEventHandler {
	all := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		pc, ok := obj.(*pgv1.PostgresCluster)
		if !ok {
			return
		}
		for _, db := range informers.ListDatabasesOf(c.databaseIndex, pc.Namespace, pc.Name) {
			c.wake(db)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc:    all,
		DeleteFunc: all,
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*pgv1.PostgresCluster)
			n, ok2 := newObj.(*pgv1.PostgresCluster)
			if !ok1 || !ok2 {
				all(newObj)
				return
			}
			if o.ResourceVersion == n.ResourceVersion {
				return
			}
			if !reflect.DeepEqual(viewOf(o), viewOf(n)) {
				all(newObj)
				return
			}
			for _, db := range informers.ListDatabasesOf(c.databaseIndex, n.Namespace, n.Name) {
				if db.DeletionTimestamp != nil {
					c.wake(db)
				}
			}
		},
	}
}

// clusterView is what a database pass reads of its PostgresCluster: whether it is the same object,
// being deleted, Ready, or Failed and why (clusterStep), its superuser
// Secret and its poolers (connection info).
type clusterView struct {
	uid       types.UID
	deleting  bool
	ready     bool
	failed    string
	resources *pgv1.ClusterResources
	poolers   *pgv1.ConnectionPoolerStatus
	// upgrade is the major upgrade's target and phase (clusterStep
	// reports it; the privileges step analyzes after it).
	upgrade upgradeView
	// replica: the cluster's topology makes it a replica (clusterStep
	// holds its databases). A promotion may change nothing else a
	// database reads (the cluster stays Ready), and must wake them.
	replica bool
	// tenants: who the cluster admits (admission.go).
	tenants *pgv1.TenantsSpec
	// defaults: the cluster's own databaseDefaults (its class's wake the
	// databases through classHandler).
	defaults *pgv1.DatabaseDefaults
}

type upgradeView struct {
	to    int32
	phase pgv1.UpgradePhase
}

func viewOf(pc *pgv1.PostgresCluster) clusterView {
	v := clusterView{uid: pc.UID, deleting: pc.DeletionTimestamp != nil,
		ready:     meta.IsStatusConditionTrue(pc.Status.Conditions, pgv1.ConditionReady),
		resources: pc.Status.Resources, poolers: pc.Status.ConnectionPoolerStatus, replica: pc.IsReplica(),
		tenants: pc.Spec.Tenants,

		defaults: pc.Spec.DatabaseDefaults}
	if u := pc.Status.Upgrade; u != nil {
		v.upgrade = upgradeView{to: u.To, phase: u.Phase}
	}
	if pc.Status.Phase == pgv1.PhaseFailed {
		v.failed = "Failed"
		if c := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionReady); c != nil {
			v.failed += ": " + c.Reason + ": " + c.Message
		}
	}
	return v
}

// cnpgClusterHandler routes a change of the CNPG Cluster's
// spec.managed.roles to the databases on the cluster: a role listed there
// is CNPG's to manage, and a new role of ours waits until an upgrade has
// moved it out (claimRole). The CNPG Cluster has its PostgresCluster's
// name. Everything else of the CNPG Cluster reaches the databases through
// the PostgresCluster's status.
func (c *Controller) cnpgClusterHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*cnpgv1.Cluster)
			n, ok2 := newObj.(*cnpgv1.Cluster)
			if !ok1 || !ok2 || apiequality.Semantic.DeepEqual(o.Spec.Managed, n.Spec.Managed) {
				return
			}
			for _, db := range informers.ListDatabasesOf(c.databaseIndex, n.Namespace, n.Name) {
				c.wake(db)
			}
		},
	}
}

// wake queues db for a pass because something it waits on moved: ahead of
// everything else (workqueue.Urgent) once it has had its own first pass (it
// carries our finalizer). A database not started yet goes ahead of other
// first passes (workqueue.Soon) but behind those under way: a cluster
// becoming Ready starts its databases together instead of in the order the
// databases of a hundred clusters were created.
func (c *Controller) wake(db *pgv1.PostgresDatabase) {
	p := workqueue.Soon
	if slices.Contains(db.Finalizers, Finalizer) {
		p = workqueue.Urgent
	}
	c.queue.AddWith(p, informers.KeyOf(db))
}
