package cnpgsim

import (
	"context"
	"errors"
	"fmt"
	"time"

	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"
)

// How CNPG 1.30 reports a recovery that does not succeed, as its source
// has it (internal/controller/cluster_controller.go reconcileResources,
// cluster_create.go createPrimaryInstance, internal/cnpi/plugin):
//
//   - The full-recovery Job `<cluster>-1-full-recovery` fails. Once it has
//     used up its backoff limit, every pass registers PhaseUnrecoverable
//     with the phaseReason of jobFailedReason and Ready False
//     (ClusterIsNotReady). The status is patched only when it differs, so
//     it stays put: no flapping. Why the Job failed (no backup before the
//     target, Postgres's FATAL) is only in the Job's log.
//   - The recovery source's ObjectStore does not exist. The barman-cloud
//     plugin's lifecycle hook on the Job fails to read it, so the Job is
//     never created: CNPG registers PhaseFailurePlugin with "Encountered an
//     error while interacting with plugins: <error>" and tries again every
//     15 s, and goes ahead once the ObjectStore exists.

// pluginRetry is how often CNPG retries after a plugin error.
const pluginRetry = 15 * time.Second

func recoveryJobName(cluster string) string { return cluster + "-1-full-recovery" }

// RecoveryFailedReason is the phaseReason the stand-in gives a Cluster
// whose recovery failed (with PhaseUnrecoverable): CNPG's for its failed
// full-recovery Job. The real-CNPG tier holds it to CNPG's.
func RecoveryFailedReason(cluster string) string { return jobFailedReason(cluster) }

// jobFailedReason is CNPG's phaseReason for a failed instance-creation Job.
func jobFailedReason(cluster string) string {
	return fmt.Sprintf("Instance creation failed for the following jobs: %s. "+
		"Check the job logs to investigate the cause of the failure.", recoveryJobName(cluster))
}

// errPluginHook is the barman-cloud plugin's answer when the recovery
// source's ObjectStore is missing, as it reaches CNPG over gRPC.
type errPluginHook struct{ objectStore string }

func (e *errPluginHook) Error() string {
	return fmt.Sprintf("rpc error: code = Unknown desc = objectstores.barmancloud.cnpg.io %q not found", e.objectStore)
}

// bootstrapRecovery restores the base backup before the first start of a
// Cluster bootstrapped by recovery. It runs before anything else writes a
// phase, so a failed recovery is reported, and only that, on every sync.
// done means the sync ends here, after requeue when that is set.
func (r *clusterRun) bootstrapRecovery(ctx context.Context) (done bool, requeue time.Duration, err error) {
	if r.inst.recoveryFailure != "" {
		return true, 0, r.writeStatus(ctx, PhaseUnrecoverable, false, jobFailedReason(r.cluster.Name))
	}
	rec := recoveryTarget(r.cluster)
	if rec == nil || r.inst.backend.shared || r.inst.backend.srv.initialized() {
		return false, 0, nil
	}
	src, err := r.recoverySource(ctx, rec)
	var hook *errPluginHook
	if errors.As(err, &hook) {
		if r.cluster.Status.Phase == "" {
			// CNPG registers the first primary before it tries the Job.
			if err := r.writeStatus(ctx, PhaseSettingUpPrimary, false, ""); err != nil {
				return true, 0, err
			}
		}
		return true, pluginRetry, r.writeStatus(ctx, PhaseFailurePlugin, false,
			"Encountered an error while interacting with plugins: "+hook.Error())
	}
	r.inst.recoveryJob = true
	if err != nil {
		return true, 0, r.recoveryError(ctx, err)
	}
	if err := r.writeStatus(ctx, PhaseSettingUpPrimary, false, ""); err != nil {
		return true, 0, err
	}
	if err := r.restore(ctx, rec, src); err != nil {
		return true, 0, r.recoveryError(ctx, err)
	}
	r.inst.recovering = true
	return false, 0, nil
}

// recoveryError turns a failure while recovering into CNPG's failed Job:
// once, not retried; other errors pass through.
func (r *clusterRun) recoveryError(ctx context.Context, err error) error {
	var rerr *errRecovery
	if !errors.As(err, &rerr) {
		if !r.inst.recovering {
			return err
		}
		// The server exited while starting to replay: Postgres says why.
		rerr = &errRecovery{msg: "PostgreSQL stopped during recovery: " + r.inst.backend.srv.lastFatal()}
	}
	r.inst.recoveryFailure, r.inst.recovering = rerr.msg, false
	r.inst.jobLog.Store(&rerr.msg)
	r.inst.backend.srv.stop()
	klog.FromContext(ctx).Info("Recovery failed", "cluster", klog.KObj(r.cluster), "job", recoveryJobName(r.cluster.Name), "reason", rerr.msg)
	return r.writeStatus(ctx, PhaseUnrecoverable, false, jobFailedReason(r.cluster.Name))
}

// RecoveryLog is what the failed full-recovery Job of the Cluster would
// have logged as its reason (CNPG puts it nowhere else); "" when its
// recovery has not failed.
func (s *Simulator) RecoveryLog(namespace, name string) string {
	inst := s.instance(cache.ObjectName{Namespace: namespace, Name: name})
	if inst == nil {
		return ""
	}
	if msg := inst.jobLog.Load(); msg != nil {
		return *msg
	}
	return ""
}
