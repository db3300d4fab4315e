package cluster

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// A major upgrade is a state the cluster reports (status.upgrade), walked
// one phase at a time by planUpgrade at the top of each pass, before the
// components run: the provisioner applies the image the plan allows
// (upgradeState.hold). CloudNativePG does the upgrade itself (an offline
// pg_upgrade in a Job when the Cluster asks for a higher major); setpoint
// decides when to ask, and what to say while it runs:
//
//   - Preflight: the target major's image has every extension the
//     databases declare, no parameter it removed is set
//     (upgrade_preflight.go);
//   - BackingUp: an on-demand backup completes, or the upgrade was
//     acknowledged to run without one (upgrade_backup.go);
//   - Upgrading: the CNPG Cluster names the target major, and CNPG runs
//     pg_upgrade; a failed Job ends the attempt (upgrade_job.go);
//   - Analyzing: each database is analyzed again by its own controller, as
//     its owner (upgrade_analyze.go);
//   - Succeeded, or Failed.
//
// Each phase is re-judged from what the world says, so a restarted operator
// resumes where the record stands and never repeats a finished step: the
// backup has a name derived from the attempt, the CNPG Cluster's major is
// read from its status (pgDataImageInfo), the analysis from each
// database's status. Nothing that would outlive a lost status write is
// done by the pass that starts an attempt (attemptOnRecord).

// upgradeState is what the upgrade plan decided in this pass
// (pass.upgrade; the files upgrade*.go alone write it).
type upgradeState struct {
	// hold is the image the CNPG Cluster keeps while an upgrade has not
	// reached pg_upgrade, or goes back to after pg_upgrade failed; nil
	// lets the provisioner apply the image the spec wants.
	hold *heldImage
	// recheck is when the plan needs another look (a probe Pod, a backup,
	// a Job, the databases' analysis: nothing we watch announces them).
	recheck time.Duration
}

// heldImage is the image the data last ran on, as CloudNativePG recorded
// it (status.pgDataImageInfo): by catalog and major when the cluster
// names a catalog, else by name.
type heldImage struct {
	name    string
	catalog *pgv1.ImageCatalogRef
	major   int
}

// upgradeHold is the image the provisioner keeps on the CNPG Cluster in
// this pass, nil for the one the spec wants.
func (p *pass) upgradeHold() *heldImage { return p.upgrade.hold }

// Rechecks of the waits no event announces.
const (
	upgradeProbeRecheck     = 3 * time.Second
	upgradeBackupRecheck    = 10 * time.Second
	upgradeRunningRecheck   = 15 * time.Second
	upgradeAnalyzeRecheck   = 5 * time.Second
	upgradePreflightRecheck = 5 * time.Minute
)

// planUpgrade walks the major upgrade one or more phases, records where it
// stands in p.status.Upgrade and the MajorUpgrade condition, and decides
// the image hold. An error is an API error: the pass retries with backoff.
func (p *pass) planUpgrade(ctx context.Context) error {
	cl := p.observedCNPG()
	if cl == nil || !runsFor(p.cluster, cl) {
		return nil // a new cluster starts on the major it asks for
	}
	data, ok := dataMajor(cl)
	want, ok2 := wantedMajor(p.want)
	if !ok || !ok2 {
		return nil
	}
	rec := p.status.Upgrade
	if want <= data {
		p.noUpgradeWanted(rec, data)
		if rec == nil || !rec.Phase.InProgress() {
			return nil
		}
		// Upgrading or Analyzing to the major the data now runs: walk on.
	} else if p.startsAttempt(rec, want) {
		now := metav1.NewTime(p.deps.clock.Now())
		rec = &pgv1.MajorUpgradeStatus{From: int32(data), To: int32(want), Phase: pgv1.UpgradePreflight,
			StartTime: now, LastTransitionTime: now, RetryRequest: p.cluster.Annotations[pgv1.RetryUpgradeAnnotation]}
		p.status.Upgrade = rec
		p.upgradeEvent(corev1.EventTypeNormal, pgv1.ReasonUpgradePreflight,
			fmt.Sprintf("Major upgrade from %d to %d: preflight", data, want))
		p.upgradeCondition(false, pgv1.ReasonUpgradePreflight, "checking what the target major needs")
	}
	return p.walkUpgrade(ctx, cl, rec)
}

// walkUpgrade runs the record's phase, and the next ones as far as each
// is done in this pass.
func (p *pass) walkUpgrade(ctx context.Context, cl *cnpgv1.Cluster, rec *pgv1.MajorUpgradeStatus) error {
	for range 5 { // at most every phase once
		before := rec.Phase
		var err error
		switch rec.Phase {
		case pgv1.UpgradePreflight:
			err = p.upgradePreflight(ctx, rec)
		case pgv1.UpgradeBackingUp:
			err = p.upgradeBackup(ctx, rec)
		case pgv1.UpgradeUpgrading:
			err = p.upgradeRunning(ctx, cl, rec)
		case pgv1.UpgradeAnalyzing:
			p.upgradeAnalyzing(ctx, rec)
		case pgv1.UpgradeFailed:
			// The attempt is over: the data's image again, until a
			// retry or a new target (startsAttempt).
			p.upgrade.hold = holdOf(cl, p.want)
			p.upgradeCondition(false, p.failedReason(), rec.Message)
		case pgv1.UpgradeSucceeded:
			p.upgradeCondition(true, pgv1.ReasonUpgradeSucceeded, rec.Message)
		}
		if err != nil || rec.Phase == before {
			return err
		}
		if rec.Phase == pgv1.UpgradeFailed {
			// The Failed record is written before the image goes back: a
			// pass that rolled back and then lost its status write would
			// find no failed Job, and start the upgrade again.
			p.upgrade.hold = heldUntilWritten(cl, p.want)
			p.upgrade.recheck = pipeline.Soonest(p.upgrade.recheck, time.Second)
			p.upgradeCondition(false, p.failedReason(), rec.Message)
			return nil
		}
	}
	return nil
}

// startsAttempt: the spec wants a higher major than the data runs, and no
// attempt for it is under way or ended in a failure nobody asked to retry.
func (p *pass) startsAttempt(rec *pgv1.MajorUpgradeStatus, want int) bool {
	switch {
	case rec == nil || rec.Phase == pgv1.UpgradeSucceeded:
		return true
	case rec.Phase == pgv1.UpgradeFailed:
		return int(rec.To) != want || p.cluster.Annotations[pgv1.RetryUpgradeAnnotation] != rec.RetryRequest
	case rec.Phase == pgv1.UpgradePreflight || rec.Phase == pgv1.UpgradeBackingUp:
		return int(rec.To) != want // a new target before anything changed
	}
	return false // Upgrading or Analyzing: CloudNativePG is at it
}

// noUpgradeWanted ends an attempt that had not reached pg_upgrade when the
// spec went back to the major the data runs: nothing was changed.
func (p *pass) noUpgradeWanted(rec *pgv1.MajorUpgradeStatus, data int) {
	if rec != nil && (rec.Phase == pgv1.UpgradePreflight || rec.Phase == pgv1.UpgradeBackingUp) && data == int(rec.To) && data > int(rec.From) {
		// The data runs the target already: the pass that asked
		// CloudNativePG for it lost its status write, and pg_upgrade ran
		// while no operator looked. Not a cancellation: walk on from
		// Upgrading, which sees it done.
		p.upgradeTo(rec, pgv1.UpgradeUpgrading, fmt.Sprintf("CloudNativePG ran pg_upgrade to %d (the record of its start was lost)", rec.To))
		return
	}
	if rec == nil || (rec.Phase != pgv1.UpgradePreflight && rec.Phase != pgv1.UpgradeBackingUp &&
		!(rec.Phase == pgv1.UpgradeUpgrading && int(rec.To) > data)) {
		return
	}
	p.upgradeTo(rec, pgv1.UpgradeFailed, fmt.Sprintf(
		"cancelled: postgresVersion asks for %d again, the major the data runs on; the cluster was not upgraded", data))
	p.upgradeCondition(false, pgv1.ReasonUpgradeFailed, rec.Message)
}

// upgradeTo moves the record to phase, with message.
func (p *pass) upgradeTo(rec *pgv1.MajorUpgradeStatus, phase pgv1.UpgradePhase, message string) {
	if rec.Phase != phase {
		rec.LastTransitionTime = metav1.NewTime(p.deps.clock.Now())
		typ := corev1.EventTypeNormal
		if phase == pgv1.UpgradeFailed {
			typ = corev1.EventTypeWarning
		}
		p.upgradeEvent(typ, upgradePhaseReasons[phase], fmt.Sprintf("Major upgrade from %d to %d: %s", rec.From, rec.To, message))
	}
	rec.Phase, rec.Message = phase, message
}

// upgradeWaits records what the phase waits for; the record stays.
func (p *pass) upgradeWaits(rec *pgv1.MajorUpgradeStatus, reason, message string, recheck time.Duration) {
	rec.Message = message
	p.upgradeCondition(false, reason, message)
	if recheck > 0 {
		p.upgrade.recheck = pipeline.Soonest(p.upgrade.recheck, recheck)
	}
}

func (p *pass) upgradeCondition(ok bool, reason, message string) {
	pipeline.SetCondition(&p.status.Conditions, p.cluster.Generation, pgv1.ConditionMajorUpgrade, ok, reason, message)
}

func (p *pass) upgradeEvent(typ, reason, message string) {
	p.deps.recorder.Event(p.cluster, typ, reason, message)
}

// upgradePhaseReasons are the reasons of the Events that mark each phase.
var upgradePhaseReasons = map[pgv1.UpgradePhase]string{
	pgv1.UpgradePreflight: pgv1.ReasonUpgradePreflight,
	pgv1.UpgradeBackingUp: pgv1.ReasonUpgradeBackingUp,
	pgv1.UpgradeUpgrading: pgv1.ReasonUpgrading,
	pgv1.UpgradeAnalyzing: pgv1.ReasonUpgradeAnalyzing,
	pgv1.UpgradeSucceeded: pgv1.ReasonUpgradeSucceeded,
	pgv1.UpgradeFailed:    pgv1.ReasonUpgradeFailed,
}

// failedReason keeps the reason the failure was recorded with (a backup
// that failed, or pg_upgrade) on the passes after it.
func (p *pass) failedReason() string {
	if c := apimeta.FindStatusCondition(p.status.Conditions, pgv1.ConditionMajorUpgrade); c != nil && c.Reason == pgv1.ReasonUpgradeBackupFailed {
		return c.Reason
	}
	return pgv1.ReasonUpgradeFailed
}

// dataMajor is the major the data runs on: CloudNativePG's record of the
// image that last ran on it, else (a CNPG Cluster that has not recorded
// one yet) the major its spec asks for.
func dataMajor(cl *cnpgv1.Cluster) (int, bool) {
	if i := cl.Status.PGDataImageInfo; i != nil && i.MajorVersion > 0 {
		return i.MajorVersion, true
	}
	return runningMajor(cl)
}

// holdOf is the image the data last ran on, in the form the cluster names
// images: its catalog with that major, or the image CloudNativePG
// recorded (else the CNPG Cluster's own imageName).
func holdOf(cl *cnpgv1.Cluster, w *desired) *heldImage {
	major, ok := dataMajor(cl)
	if !ok {
		return nil
	}
	if w.ImageCatalog != nil {
		return &heldImage{catalog: w.ImageCatalog, major: major}
	}
	if i := cl.Status.PGDataImageInfo; i != nil && i.Image != "" {
		return &heldImage{name: i.Image, major: major}
	}
	if cl.Spec.ImageName != "" {
		return &heldImage{name: cl.Spec.ImageName, major: major}
	}
	return nil
}

// heldUntilWritten is the hold of the pass that records a failure: the
// CNPG Cluster keeps what it names now (the target), so CloudNativePG's
// rollback starts only once the Failed record is stored.
func heldUntilWritten(cl *cnpgv1.Cluster, w *desired) *heldImage {
	if r := cl.Spec.ImageCatalogRef; r != nil && w.ImageCatalog != nil {
		return &heldImage{catalog: w.ImageCatalog, major: r.Major}
	}
	if cl.Spec.ImageName != "" {
		return &heldImage{name: cl.Spec.ImageName, major: 0}
	}
	return nil
}

// logUpgrade notes a phase's decision at debug level.
func logUpgrade(ctx context.Context, rec *pgv1.MajorUpgradeStatus, msg string, kv ...any) {
	klog.FromContext(ctx).V(2).Info(msg, append([]any{"from", rec.From, "to", rec.To, "phase", rec.Phase}, kv...)...)
}
