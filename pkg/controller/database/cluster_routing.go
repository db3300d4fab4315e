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
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// clusterHandler routes PostgresCluster events to the databases on the
// cluster, and only when something a database pass reads changed (see
// clusterView): a new cluster passes through several phases and writes
// its status several times on the way to Ready, and each write woke all
// of its databases for a pass that found them still waiting. A status
// write that only moves the role report on (one per role batch) wakes only
// the databases whose roles it reports on. Databases being deleted read
// the cluster's phase for their messages and are woken by any change.
func (c *Controller) clusterHandler() cache.ResourceEventHandler {
	all := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		pc, ok := obj.(*pgv1.PostgresCluster)
		if !ok {
			return
		}
		for _, db := range controller.ListDatabasesOf(c.databaseIndex, pc.Namespace, pc.Name) {
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
			for _, db := range controller.ListDatabasesOf(c.databaseIndex, n.Namespace, n.Name) {
				if db.DeletionTimestamp != nil || !equalReports(rolesReportFor(o, db), rolesReportFor(n, db)) {
					c.wake(db)
				}
			}
		},
	}
}

// clusterView is what a database pass reads of its PostgresCluster,
// besides the role report (rolesReportFor): whether it is the same object,
// being deleted, Ready, or Failed and why (clusterStep), its superuser
// Secret and its poolers (connection info).
type clusterView struct {
	uid       types.UID
	deleting  bool
	ready     bool
	failed    string
	resources *pgv1.ClusterResources
	poolers   *pgv1.ConnectionPoolerStatus
}

func viewOf(pc *pgv1.PostgresCluster) clusterView {
	v := clusterView{uid: pc.UID, deleting: pc.DeletionTimestamp != nil,
		ready:     meta.IsStatusConditionTrue(pc.Status.Conditions, pgv1.ConditionReady),
		resources: pc.Status.Resources, poolers: pc.Status.ConnectionPoolerStatus}
	if pc.Status.Phase == pgv1.PhaseFailed {
		v.failed = "Failed"
		if c := meta.FindStatusCondition(pc.Status.Conditions, pgv1.ConditionReady); c != nil {
			v.failed += ": " + c.Reason + ": " + c.Message
		}
	}
	return v
}

// rolesReportFor is the part of the cluster's role arbitration about db:
// the owners and conflicts of every role db may ask for or clean up, and
// those that name db.
func rolesReportFor(pc *pgv1.PostgresCluster, db *pgv1.PostgresDatabase) roleReport {
	return reportOf(pc, nil).about(rolesOf(db), ownerOfDB(db))
}

func ownerOfDB(db *pgv1.PostgresDatabase) pgv1.ObjectOwner {
	return pgv1.ObjectOwner{Name: db.Name, UID: db.UID}
}

// rolesOf are the names of every role db's databases may have, in the spec
// or still in status (being removed).
func rolesOf(db *pgv1.PostgresDatabase) []string {
	var out []string
	for _, name := range specNames(db) {
		out = append(out, controller.NamesOf(db.Name, name).Roles()...)
	}
	for _, e := range db.Status.Databases {
		out = append(out, controller.NamesOf(db.Name, e.Name).Roles()...)
		for _, r := range e.Roles {
			out = append(out, r.Name)
		}
	}
	return out
}

func equalReports(a, b roleReport) bool { return reflect.DeepEqual(a, b) }

// cnpgClusterHandler routes CNPG's role report (the CNPG Cluster's
// status.managedRolesStatus) to the databases whose roles it changed: a
// role reconciled, or CNPG unable to reconcile one. The CNPG Cluster has
// its PostgresCluster's name. Everything else of the CNPG Cluster reaches
// the databases through the PostgresCluster's status.
func (c *Controller) cnpgClusterHandler() cache.ResourceEventHandler {
	return cache.ResourceEventHandlerFuncs{
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*cnpgv1.Cluster)
			n, ok2 := newObj.(*cnpgv1.Cluster)
			if !ok1 || !ok2 || apiequality.Semantic.DeepEqual(o.Status.ManagedRolesStatus, n.Status.ManagedRolesStatus) {
				return
			}
			before, after := cnpgSide(o), cnpgSide(n)
			for _, db := range controller.ListDatabasesOf(c.databaseIndex, n.Namespace, n.Name) {
				roles := rolesOf(db)
				if !equalReports(before.about(roles, ownerOfDB(db)), after.about(roles, ownerOfDB(db))) {
					c.wake(db)
				}
			}
		},
	}
}

// wake queues db for a pass because something it waits on moved: ahead of
// everything else (workqueue.Urgent) once it has had its own first pass (it
// carries our finalizer). A database not started yet goes ahead of other
// first passes (workqueue.Soon) but behind those under way: a cluster
// becoming Ready starts its databases together, so their role claims reach
// it together — one apply of managed.roles and one status write for the
// lot instead of one each, as they would if the databases of a hundred
// clusters were started in the order they were created.
func (c *Controller) wake(db *pgv1.PostgresDatabase) {
	p := workqueue.Soon
	if slices.Contains(db.Finalizers, Finalizer) {
		p = workqueue.Urgent
	}
	c.queue.AddWith(p, controller.KeyOf(db))
}
