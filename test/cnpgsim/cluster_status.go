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
	conditionSystemID    = "ConsistentSystemID"
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
	if r.instanceRan() {
		st.CurrentPrimary = c.Name + "-1"
	}
	st.WriteService = c.Name + "-rw"
	r.pvcStatus(st)
	st.ReadService = c.Name + "-r"
	st.Certificates = r.certificatesStatus()
	pi, err := r.s.poolerIntegrations(c)
	if err != nil {
		return err
	}
	st.PoolerIntegrations = pi
	switch {
	case r.roles != nil:
		st.ManagedRolesStatus = r.roles
	case !hasManagedRoles(c):
		// CNPG's managedRolesStatus is a struct, not a pointer: an empty
		// object when no role is managed.
		st.ManagedRolesStatus = &cnpgv1.ManagedRoles{}
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
	setInitialized(st, r.instanceCreated())
	setSystemID(st, r.instanceCreated(), r.instanceRan())
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

// instanceRan reports whether the instance manager has run the primary,
// which names itself currentPrimary when it starts: after initdb, or after
// a recovery that replayed to its target and promoted — never after a
// failed one (CNPG's full-recovery Job runs the restore and the replay;
// the instance Pod only follows its success).
func (r *clusterRun) instanceRan() bool {
	return r.inst.backend.srv.initialized() && !r.inst.recovering && r.inst.recoveryFailure == ""
}

// instanceCreated reports whether CNPG has created the first instance's
// PVC, with its initdb or full-recovery Job: at once, but for a recovery
// whose plugin hook fails before the Job exists.
func (r *clusterRun) instanceCreated() bool {
	return recoveryTarget(r.cluster) == nil || r.inst.recoveryJob || r.inst.backend.shared || r.inst.backend.srv.initialized()
}

// setInitialized keeps CNPG 1.30's Initialized condition as its code has
// it, not as its documentation says: False (BootstrapPending) in the first
// status, then True (BootstrapCompleted) for good as soon as status.instances
// is above 0 — and CNPG counts instances by their PVCs, so a failed
// full-recovery Job's PVC makes it True too (real CNPG showed it:
// realcnpg's TestFailedRestoreOnRealCNPG). A pass cannot tell a finished
// bootstrap by it; currentPrimary tells (instanceRan).
func setInitialized(st *cnpgv1.ClusterStatus, created bool) {
	if created {
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

// setSystemID keeps CNPG's ConsistentSystemID condition
// (internal/controller/cluster_status.go): True once the instances report
// one system ID — the stand-in's one server, once it has run. Not its
// liveness: a crash is reported by the phase (Failing over), and a
// condition flipping first would be a status write of its own.
func setSystemID(st *cnpgv1.ClusterStatus, created, ran bool) {
	cond := metav1.Condition{Type: conditionSystemID, Status: metav1.ConditionFalse, Reason: "NotFound",
		Message: "No instances are present in the cluster to report a system ID."}
	switch {
	case ran:
		cond.Status, cond.Reason, cond.Message = metav1.ConditionTrue, "Unique", "A single, unique system ID was found across reporting instances."
	case created:
		cond.Message = "Instances are present, but none have reported a system ID."
	}
	meta.SetStatusCondition(&st.Conditions, cond)
}
