package cnpgsim

import (
	"context"
	"fmt"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/klog/v2"
)

// CNPG 1.30's offline in-place major upgrade
// (pkg/reconciler/majorupgrade/reconciler.go), played on the stand-in's
// one server. A spec whose major (imageCatalogRef's, or the imageName
// tag's) is above status.pgDataImageInfo.majorVersion:
//
//   - phase "Upgrading Postgres major version", phaseReason "Upgrading
//     cluster to major version N", Ready False (CNPG's
//     SetClusterReadyCondition), readyInstances 0;
//   - every instance stops (CNPG deletes the Pods): the server accepts no
//     connection;
//   - a batch/v1 Job `<cluster>-1-major-upgrade` (the primary's serial
//     is always 1 here) as CNPG's createMajorUpgradeJobDefinition makes
//     it: CNPG's labels (cnpg.io/cluster, cnpg.io/jobRole major-upgrade,
//     cnpg.io/instanceName, app.kubernetes.io/…), the Cluster as
//     controller, backoffLimit 0, init container `prepare` on the old
//     image and container `major-upgrade` on the target image. No Job
//     controller runs on the stand-in's control plane (its
//     kube-controller-manager runs the garbage collector and namespace
//     controllers only), so the stand-in writes the Job's status as the
//     Job controller would: startTime and active 1 at once, then after
//     Options.MajorUpgradeDuration either succeeded 1 with
//     SuccessCriteriaMet and Complete (CompletionsReached, "Reached
//     expected number of succeeded pods") and completionTime, or — after
//     FailMajorUpgrade — failed 1 with FailureTarget and Failed
//     (BackoffLimitExceeded, "Job has reached the specified backoff
//     limit");
//   - success: pgDataImageInfo becomes the Job's image and the requested
//     major (the phase still the upgrade's), the Job is deleted
//     (foreground, as CNPG), the server starts again on the same data
//     directory (databases, roles, data kept) under phase "Waiting for the
//     instances to become active" ("Some instances are not yet active.
//     Please wait."), replicas are re-created under new serials (CNPG
//     deletes their PVCs: healthyPVC names the new ones) and the Cluster
//     is healthy — the steps real CNPG took in test/parity's record;
//   - failure: nothing more happens (backoffLimit 0: CNPG does not
//     retry): the phase stays, every instance stays down, the Job stays
//     Failed;
//   - rollback (handleRollbackIfNeeded): while the Job exists, running or
//     failed, a spec whose major is no longer above pgDataImageInfo's
//     deletes the Job, records Event MajorUpgradeRollback ("Cleaned up
//     failed upgrade job, rolling back to major version N") and starts the
//     instances on the old image ("Waiting for the instances to become
//     active", then healthy). Before a Job exists, such a spec is
//     clearStaleUpgradeTarget, which only touches status.image and
//     status.targetPGDataImageInfo, neither in setpoint's typed status.
//
// server_version_num stays the host's 15 after an "upgrade" to any major:
// only PostgreSQL 15 binaries exist here. Tests must not expect 17 from
// the stand-in; real CNPG's tier proves that.

// CNPG's phase strings of an upgrade and what follows it.
const (
	PhaseMajorUpgrade        = "Upgrading Postgres major version"
	PhaseWaitingForInstances = "Waiting for the instances to become active"
	PhaseCreatingReplica     = "Creating a new replica"
	// reasonWaitingForInstances is CNPG's phaseReason while the
	// instances it re-created after the upgrade start.
	reasonWaitingForInstances = "Some instances are not yet active. Please wait."
)

const defaultMajorUpgradeDuration = 2 * time.Second

// majorUpgrade is CNPG's majorupgrade.Reconcile. done says the sync goes
// no further (the instances are down for the upgrade).
func (r *clusterRun) majorUpgrade(ctx context.Context) (done bool, requeue time.Duration, err error) {
	data := r.cluster.Status.PGDataImageInfo
	if data == nil {
		return false, 0, nil
	}
	raised := r.requested.MajorVersion > data.MajorVersion
	// The Job is read live only when one may exist: a stand-in restarted
	// mid-upgrade finds it by the phase.
	if !raised && r.inst.upgrade.job == "" && r.cluster.Status.Phase != PhaseMajorUpgrade {
		return false, 0, nil
	}
	job, err := r.upgradeJob(ctx)
	if err != nil {
		return true, 0, err
	}
	switch {
	case job != nil && jobSucceeded(job):
		return r.upgradeSucceeded(ctx, job)
	case job != nil && !raised:
		return r.rollBackUpgrade(ctx, job)
	case job != nil:
		return r.upgradeRunning(ctx, job)
	case raised:
		return r.startUpgrade(ctx)
	}
	r.inst.upgrade = upgradeState{}
	return false, 0, nil
}

// upgradeState is what the stand-in remembers of a Cluster's upgrade.
type upgradeState struct {
	job   string // the Job's UID while the stand-in runs one
	fails bool   // it is to end Failed (FailMajorUpgrade)
	// rejoin are the replicas' new serials once the upgrade succeeded:
	// each is announced with "Creating a new replica" once.
	rejoin []int
}

// startUpgrade is CNPG's first pass: phase and Ready, the instances
// deleted, the Job created.
func (r *clusterRun) startUpgrade(ctx context.Context) (bool, time.Duration, error) {
	major := r.requested.MajorVersion
	if err := r.writeStatus(ctx, PhaseMajorUpgrade, false, upgradeReason(major)); err != nil {
		return true, 0, err
	}
	r.stopForUpgrade()
	job, err := r.createUpgradeJob(ctx)
	if err != nil {
		return true, 0, err
	}
	fails := r.faults.failMajorUpgrade
	if fails {
		// One Job per fault: CNPG runs the next attempt only if the user
		// asks again (a rollback, then a new upgrade).
		r.s.editFaults(r.cluster.Namespace, r.cluster.Name, func(f *faults) { f.failMajorUpgrade = false })
	}
	r.inst.upgrade = upgradeState{job: string(job.UID), fails: fails}
	klog.FromContext(ctx).Info("Major upgrade started", "cluster", klog.KObj(r.cluster), "job", job.Name, "major", major, "fails", fails)
	return true, r.s.majorUpgradeDuration(), nil
}

func upgradeReason(major int) string {
	return fmt.Sprintf("Upgrading cluster to major version %d", major)
}

// stopForUpgrade stops every instance; the shared server serves other
// Clusters and stays up.
func (r *clusterRun) stopForUpgrade() {
	if !r.inst.backend.shared {
		r.inst.backend.srv.stop()
	}
}

// upgradeRunning waits for the Job, ending it after the simulated
// duration; a failed Job is left as it is.
func (r *clusterRun) upgradeRunning(ctx context.Context, job *batchv1.Job) (bool, time.Duration, error) {
	r.stopForUpgrade()
	if err := r.writeStatus(ctx, PhaseMajorUpgrade, false, upgradeReason(r.requested.MajorVersion)); err != nil {
		return true, 0, err
	}
	if jobFailed(job) {
		return true, 0, nil
	}
	if r.inst.upgrade.job != string(job.UID) {
		// A Job this process did not start (it restarted): it is let run
		// its course from now, and succeeds.
		r.inst.upgrade = upgradeState{job: string(job.UID)}
	}
	start := job.CreationTimestamp.Time
	if job.Status.StartTime != nil {
		start = job.Status.StartTime.Time
	}
	if wait := time.Until(start.Add(r.s.majorUpgradeDuration())); wait > 0 {
		return true, wait, nil
	}
	job, err := r.finishUpgradeJob(ctx, job, !r.inst.upgrade.fails)
	if err != nil {
		return true, 0, err
	}
	if jobFailed(job) {
		klog.FromContext(ctx).Info("Major upgrade failed", "cluster", klog.KObj(r.cluster), "job", job.Name)
		return true, 0, nil
	}
	return r.upgradeSucceeded(ctx, job)
}

// upgradeSucceeded is CNPG's majorVersionUpgradeHandleCompletion:
// pgDataImageInfo moves to the Job's image and the requested major, the
// replicas' PVCs go, the Job is deleted; the sync then goes on and starts
// the server again.
func (r *clusterRun) upgradeSucceeded(ctx context.Context, job *batchv1.Job) (bool, time.Duration, error) {
	image, ok := upgradeTargetImage(job)
	if !ok {
		return true, 0, fmt.Errorf("major upgrade job is missing the target image")
	}
	info := r.requested
	info.Image = image
	if err := r.setDataImage(ctx, &info); err != nil {
		return true, 0, err
	}
	if err := r.deleteUpgradeJob(ctx, job); err != nil {
		return true, 0, err
	}
	r.inst.upgrade = upgradeState{rejoin: r.inst.newReplicaSerials(r.cluster.Spec.Instances)}
	klog.FromContext(ctx).Info("Major upgrade succeeded", "cluster", klog.KObj(r.cluster), "major", info.MajorVersion)
	return false, 0, nil
}

// rollBackUpgrade is CNPG's handleRollbackIfNeeded: the Job goes, an
// Event says so, and the sync goes on to start the instances on the old
// image (pgDataImageInfo never moved).
func (r *clusterRun) rollBackUpgrade(ctx context.Context, job *batchv1.Job) (bool, time.Duration, error) {
	if err := r.deleteUpgradeJob(ctx, job); err != nil {
		return true, 0, err
	}
	major := r.requested.MajorVersion
	if err := r.s.recordEvent(ctx, r.cluster, "MajorUpgradeRollback",
		fmt.Sprintf("Cleaned up failed upgrade job, rolling back to major version %d", major)); err != nil {
		return true, 0, err
	}
	r.inst.upgrade = upgradeState{}
	klog.FromContext(ctx).Info("Major upgrade rolled back", "cluster", klog.KObj(r.cluster), "major", major)
	return false, 0, nil
}

// rejoinReplicas announces each replica re-created after an upgrade, as
// CNPG's joinReplicaInstance registers its phase before the join Job.
// The one server already serves them.
func (r *clusterRun) rejoinReplicas(ctx context.Context) error {
	for len(r.inst.upgrade.rejoin) > 0 {
		serial := r.inst.upgrade.rejoin[0]
		reason := fmt.Sprintf("Creating replica %s-%d-join", r.cluster.Name, serial)
		if err := r.writeStatus(ctx, PhaseCreatingReplica, false, reason); err != nil {
			return err
		}
		r.inst.upgrade.rejoin = r.inst.upgrade.rejoin[1:]
	}
	return nil
}

func (s *Simulator) majorUpgradeDuration() time.Duration {
	if s.opts.MajorUpgradeDuration > 0 {
		return s.opts.MajorUpgradeDuration
	}
	return defaultMajorUpgradeDuration
}
