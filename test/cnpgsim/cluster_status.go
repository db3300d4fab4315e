package cnpgsim

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// The Ready condition as CNPG words it.
const (
	conditionReady       = "Ready"
	reasonClusterReady   = "ClusterIsReady"
	reasonClusterUnready = "ClusterIsNotReady"
	messageReady         = "Cluster is Ready"
	messageUnready       = "Cluster Is Not Ready"
	conditionInitialized = "Initialized"
)

// writeStatus writes the Cluster's status for phase, if it differs from
// what is there. ready says whether the (single) server counts as ready;
// the Ready condition is True only in the healthy phase, as in CNPG.
func (r *clusterRun) writeStatus(ctx context.Context, phase string, ready bool, reason string) error {
	c := r.cluster
	st := c.Status.DeepCopy()
	st.Phase = phase
	st.PhaseReason = reason
	st.Instances = c.Spec.Instances
	st.ReadyInstances = 0
	if ready {
		// One server stands in for every instance.
		st.ReadyInstances = c.Spec.Instances
	}
	st.TargetPrimary = c.Name + "-1"
	if r.inst.backend.srv.initialized() {
		st.CurrentPrimary = c.Name + "-1"
	}
	st.WriteService = c.Name + "-rw"
	r.pvcStatus(st)
	st.ReadService = c.Name + "-r"
	if r.roles != nil || !hasManagedRoles(c) {
		st.ManagedRolesStatus = r.roles
	}
	cond := metav1.Condition{
		Type:    conditionReady,
		Status:  metav1.ConditionFalse,
		Reason:  reasonClusterUnready,
		Message: messageUnready,
	}
	if ready && phase == PhaseHealthy {
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, reasonClusterReady, messageReady
	}
	meta.SetStatusCondition(&st.Conditions, cond)
	setInitialized(st, ready)
	if equality.Semantic.DeepEqual(*st, c.Status) {
		return nil
	}
	next := c.DeepCopy()
	next.Status = *st
	updated, err := r.s.cnpg.CNPGV1().Clusters(c.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{FieldManager: r.s.opts.FieldManager})
	if err != nil {
		return fmt.Errorf("update cluster status: %w", err)
	}
	klog.FromContext(ctx).V(2).Info("Cluster status", "phase", phase, "readyInstances", st.ReadyInstances)
	r.cluster = updated
	return nil
}

// setInitialized keeps CNPG 1.30's Initialized condition: False
// (BootstrapPending) from the first status until an instance runs, then
// True (BootstrapCompleted) for good. A Cluster bootstrapped by recovery
// gets its instance only when the full-recovery Job succeeded, so here:
// once the server has first counted as ready.
func setInitialized(st *cnpgv1.ClusterStatus, ready bool) {
	if ready {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: conditionInitialized, Status: metav1.ConditionTrue,
			Reason: "BootstrapCompleted", Message: "Cluster has been bootstrapped",
		})
		return
	}
	if meta.FindStatusCondition(st.Conditions, conditionInitialized) == nil {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{
			Type: conditionInitialized, Status: metav1.ConditionFalse,
			Reason: "BootstrapPending", Message: "Cluster has not been bootstrapped yet",
		})
	}
}
