package database

import (
	"context"
	"fmt"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Admission is the cluster's, never the tenant's
// (docs/adr/0016-shared-clusters-across-namespaces.md): a PostgresDatabase
// naming a cluster of another namespace is served only while that
// cluster, or its class, admits its namespace (spec.tenants). It is
// checked at every pass, before anything is written.
//
//   - Never admitted (nothing of it on the cluster side, no Admitted
//     condition yet): refused, ClusterReady False NamespaceNotAdmitted,
//     and the pass writes nothing but the status.
//   - Admitted once, no longer: withdrawn. What it has keeps working and
//     nothing is deleted (data is never lost to a label edit), but the
//     pass changes nothing (no new role, no rotation): Admitted False
//     AdmissionWithdrawn. Deleting the PostgresDatabase still cleans up.

// admissionRecheck bounds how long a refusal waits for an event that
// would lift it (a cluster, class or Namespace label change wakes it).
const admissionRecheck = 2 * time.Minute

// admits says whether the cluster of db, with its class, admits db's
// namespace; why names the cluster and the rule when it does not.
func (c *Controller) admits(db *pgv1.PostgresDatabase, obs *observation) (ok bool, why string) {
	pc := obs.cluster
	ref := fmt.Sprintf("PostgresCluster %s/%s", clusterNS(db), db.Spec.ClusterRef.Name)
	if pc == nil {
		return false, ref + " not found"
	}
	t := pc.Spec.Tenants
	from := ""
	if t == nil && obs.class != nil {
		t, from = obs.class.Spec.Tenants, fmt.Sprintf(" (from PostgresClusterClass %s)", obs.class.Name)
	}
	if t == nil {
		return false, fmt.Sprintf("%s admits only its own namespace (no spec.tenants, nor in its class)", ref)
	}
	if slices.Contains(t.Namespaces, db.Namespace) {
		return true, ""
	}
	if t.NamespaceSelector == nil {
		return false, fmt.Sprintf("%s does not admit namespace %s: tenants.namespaces%s lists %v", ref, db.Namespace, from, t.Namespaces)
	}
	sel, err := metav1.LabelSelectorAsSelector(t.NamespaceSelector)
	if err != nil {
		return false, fmt.Sprintf("%s: tenants.namespaceSelector%s is invalid: %v", ref, from, err)
	}
	if !c.namespaces.HasSynced() {
		return false, fmt.Sprintf("%s admits by tenants.namespaceSelector%s, and the labels of namespace %s cannot be read yet (the operator lists and watches Namespaces for this)", ref, from, db.Namespace)
	}
	obj, found, err := c.namespaces.GetStore().GetByKey(db.Namespace)
	ns, isNS := obj.(*corev1.Namespace)
	if err != nil || !found || !isNS {
		return false, fmt.Sprintf("%s: namespace %s not found", ref, db.Namespace)
	}
	if !sel.Matches(labels.Set(ns.Labels)) {
		return false, fmt.Sprintf("%s does not admit namespace %s: its labels do not match tenants.namespaceSelector%s %q", ref, db.Namespace, from, sel.String())
	}
	return true, ""
}

// wasAdmitted: db was served by its cluster before: its status says so,
// or something of it is on the cluster side.
func wasAdmitted(db *pgv1.PostgresDatabase, obs *observation) bool {
	if meta.FindStatusCondition(db.Status.Conditions, pgv1.ConditionAdmitted) != nil {
		return true
	}
	for _, r := range obs.roles {
		if r != nil && ownsClusterSide(r, db) {
			return true
		}
	}
	for _, d := range obs.cnpg {
		if d != nil && ownsClusterSide(d, db) {
			return true
		}
	}
	return false
}

// admission runs the check of a live PostgresDatabase; done is true when
// the pass ends here (refused or withdrawn), with its result. For an
// admitted database across namespaces, it records Admitted True on p.
func (c *Controller) admission(ctx context.Context, p *pass) (res workqueue.Result, done bool, err error) {
	db := p.db
	if !crossNamespace(db) {
		meta.RemoveStatusCondition(&p.status.Conditions, pgv1.ConditionAdmitted)
		return workqueue.Result{}, false, nil
	}
	ok, why := c.admits(db, p.obs)
	if ok {
		pipeline.SetCondition(&p.status.Conditions, db.Generation, pgv1.ConditionAdmitted, true, pgv1.ReasonAdmitted,
			fmt.Sprintf("PostgresCluster %s/%s admits namespace %s", clusterNS(db), db.Spec.ClusterRef.Name, db.Namespace))
		return workqueue.Result{}, false, nil
	}
	if wasAdmitted(db, p.obs) {
		// Everything else of the status stays as the last admitted pass
		// left it: the database keeps working.
		pipeline.SetCondition(&p.status.Conditions, db.Generation, pgv1.ConditionAdmitted, false, pgv1.ReasonAdmissionWithdrawn,
			why+"; what exists is kept and keeps working, and setpoint changes nothing until the namespace is admitted again (deleting the PostgresDatabase still cleans up)")
	} else {
		pipeline.SetCondition(&p.status.Conditions, db.Generation, pgv1.ConditionClusterReady, false, pgv1.ReasonNamespaceNotAdmitted, why)
		p.setPhase(pgv1.PhasePending, pgv1.ReasonNamespaceNotAdmitted, why)
	}
	if err := c.writeStatus(ctx, db, p.status); err != nil {
		return workqueue.Result{}, true, err
	}
	return workqueue.Result{RequeueAfter: admissionRecheck}, true, nil
}
