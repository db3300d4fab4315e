package cnpgsim

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"
)

// The Ready condition as CNPG words it.
const (
	conditionReady       = "Ready"
	reasonClusterReady   = "ClusterIsReady"
	reasonClusterUnready = "ClusterIsNotReady"
	messageReady         = "Cluster is Ready"
	messageUnready       = "Cluster Is Not Ready"
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
