package database

import (
	"slices"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// clusterHandler routes PostgresCluster events to the databases on the
// cluster. A status write that only moves the role report on (one per role
// batch) wakes only the databases whose roles it reports on, not all of the
// cluster's: with 10 databases per cluster that was 10 passes per write,
// nine of them finding nothing new. Any other change — Ready, phase,
// deletion, resources, pooler, spec — wakes them all, as before.
func (c *Controller) clusterHandler() cache.ResourceEventHandler {
	all := func(obj any) {
		if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
			obj = d.Obj
		}
		for _, k := range c.databasesOnCluster(obj) {
			c.queue.Add(k)
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
			if !onlyRolesReportChanged(o, n) {
				all(newObj)
				return
			}
			for _, db := range controller.ListDatabasesOf(c.databaseIndex, n.Namespace, n.Name) {
				if !equalReports(rolesReportFor(o, db), rolesReportFor(n, db)) {
					c.queue.Add(controller.KeyOf(db))
				}
			}
		},
	}
}

// onlyRolesReportChanged: old and new differ at most in the role report
// (managedRolesStatus and the ManagedRolesReady condition that counts it)
// and in metadata the databases never read (resourceVersion, managed
// fields).
func onlyRolesReportChanged(o, n *pgv1.PostgresCluster) bool {
	strip := func(pc *pgv1.PostgresCluster) *pgv1.PostgresCluster {
		pc = pc.DeepCopy()
		pc.ResourceVersion, pc.ManagedFields = "", nil
		pc.Status.ManagedRolesStatus = nil
		meta.RemoveStatusCondition(&pc.Status.Conditions, pgv1.ConditionManagedRoles)
		return pc
	}
	return apiequality.Semantic.DeepEqual(strip(o), strip(n))
}

// rolesReportFor is the part of the cluster's role report about db: the
// entries of every role db may ask for or clean up, and the owners and
// conflicts that name db.
func rolesReportFor(pc *pgv1.PostgresCluster, db *pgv1.PostgresDatabase) *pgv1.ManagedRolesStatus {
	st := pc.Status.ManagedRolesStatus
	if st == nil {
		return nil
	}
	me := pgv1.ObjectOwner{Name: db.Name, UID: db.UID}
	roles := rolesOf(db)
	mine := func(role string) bool { return slices.Contains(roles, role) }
	out := &pgv1.ManagedRolesStatus{}
	for _, o := range st.Owners {
		if mine(o.Role) || o.Owner == me {
			out.Owners = append(out.Owners, o)
		}
	}
	for _, cf := range st.Conflicts {
		if mine(cf.Role) || cf.Owner == me || cf.Claimant == me {
			out.Conflicts = append(out.Conflicts, cf)
		}
	}
	out.Reconciled = slices.DeleteFunc(slices.Clone(st.Reconciled), func(r string) bool { return !mine(r) })
	out.Pending = slices.DeleteFunc(slices.Clone(st.Pending), func(r string) bool { return !mine(r) })
	for _, f := range st.Failed {
		if mine(f.Name) {
			out.Failed = append(out.Failed, f)
		}
	}
	if len(out.Owners)+len(out.Conflicts)+len(out.Reconciled)+len(out.Pending)+len(out.Failed) == 0 {
		return nil // nothing about db: the same as no report
	}
	return out
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

func equalReports(a, b *pgv1.ManagedRolesStatus) bool { return apiequality.Semantic.DeepEqual(a, b) }
