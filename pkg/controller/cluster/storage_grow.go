package cluster

import (
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/collector"
)

// Storage auto-grow, the seed's disk that fills up: the collector samples
// the data size in the background and wakes the cluster when usage crosses
// the threshold; the pass judges the last sample, level-triggered, and
// raises the size it applies to the CNPG Cluster (CNPG then resizes the
// PVCs). The user's storage.size is never written.
//
// Intent still comes from the spec: storage.size, autoGrow's threshold,
// increment, limit and cooldown are read again on every pass. The
// operator's own past decision — the size it grew to, from what and when —
// comes from what it wrote and observes: the mark on the CNPG Cluster
// (storage_mark.go) and the size that Cluster runs. A grown size must not
// be forgotten (a volume cannot shrink), and the cooldown window must
// survive an operator restart, or a restarted operator would grow again at
// once. A spec larger than the record wins. status.storage only reports.

// growDecision is what one pass decides about the volume size.
type growDecision struct {
	// size is the size to apply to the CNPG Cluster.
	size resource.Quantity
	// record is the decision as status.storage reports it, and the mark
	// it applies (markOf); nil when there is nothing to record (auto-grow
	// never enabled).
	record *pgv1.StorageStatus
	// kept is the report when this pass's grow does not reach the CNPG
	// Cluster (settleStorage): the record as observed.
	kept *pgv1.StorageStatus
	// grew: this pass raised size from from.
	grew bool
	from resource.Quantity
	// atLimit is the StorageAtLimit condition, nil when auto-grow is off
	// (the condition is then removed) or unknown (it is kept as it is).
	atLimit *condition
	// usage describes the sample judged, for Events.
	usage string
	// recheck is when the pass must look again without an event: the end
	// of the cooldown window.
	recheck time.Duration
}

// condition is a condition to set.
type condition struct {
	status          bool
	reason, message string
}

// decideGrow judges the last sample against the size in effect.
// effective is the size resolve settled on (storage.size, or more from the
// mark or an unrecorded grow of the running CNPG Cluster); spec is
// storage.size alone; prev is the mark's record (observedGrow), never
// status; resizing says CNPG reports PVCs still resizing
// (status.resizingPVC), whatever started it.
func decideGrow(effective, spec resource.Quantity, policy *autoGrowPolicy, prev *pgv1.StorageStatus, s *collector.Sample, resizing bool, now time.Time) growDecision {
	d := growDecision{size: effective}
	if policy == nil && prev == nil {
		return d
	}
	rec := &pgv1.StorageStatus{}
	if prev != nil {
		rec = prev.DeepCopy()
	}
	d.record = rec
	recorded := spec
	if rec.Size != nil && rec.Size.Cmp(recorded) > 0 {
		recorded = *rec.Size
	}
	d.kept = keptRecord(rec, effective, policy, resizing, now)
	if effective.Cmp(recorded) > 0 {
		// The CNPG Cluster runs larger than anything recorded: a grow
		// applied whose status write was lost (so never announced either).
		// Keep it, and start its window now rather than grow again on top.
		rec.LastGrowFrom, rec.LastGrowTime = qptr(recorded), &metav1.Time{Time: now}
		d.grew, d.from = true, recorded
	}
	rec.Size = qptr(effective)
	if policy == nil {
		// Off: the grown size stays (a volume cannot shrink), nothing else
		// is judged.
		rec.GrowInFlight = false
		return d
	}
	var wait time.Duration
	if rec.LastGrowTime != nil {
		wait = rec.LastGrowTime.Add(policy.cooldown).Sub(now)
	}
	if wait > 0 {
		d.recheck = wait
	}
	// A slow volume may still be resizing after the window: no grow on
	// top of it. CNPG's status change when it is done wakes the pass.
	rec.GrowInFlight = wait > 0 || resizing
	atLimit := policy.limit.Cmp(effective) <= 0
	if s == nil || s.Failed() {
		if !atLimit {
			d.atLimit = belowLimit(policy)
		}
		return d // nothing measured: no grow, and the condition holds
	}
	used, size := s.UsedBytes(), effective.Value()
	d.usage = fmt.Sprintf("%s of %s in use (%d%%)", bytesString(used), effective.String(), used*100/max(size, 1))
	over := used*100 >= int64(policy.threshold)*size
	switch {
	case !over && atLimit:
		d.atLimit = &condition{false, pgv1.ReasonUnderThreshold, fmt.Sprintf("the volumes are at the auto-grow limit %s; usage is under the %d%% threshold", policy.limit.String(), policy.threshold)}
	case !over:
		d.atLimit = belowLimit(policy)
	case atLimit:
		d.atLimit = &condition{true, pgv1.ReasonAtLimit, fmt.Sprintf("usage is over the %d%% threshold and the volumes are at the auto-grow limit %s: raise storage.autoGrow.limit or free space", policy.threshold, policy.limit.String())}
	case rec.GrowInFlight:
		d.atLimit = belowLimit(policy) // the window ends at recheck
	default:
		d.atLimit = belowLimit(policy)
		d.grow(policy, rec, now)
	}
	return d
}

// grow raises the size by one increment, capped at the limit, and opens
// the cooldown window.
func (d *growDecision) grow(policy *autoGrowPolicy, rec *pgv1.StorageStatus, now time.Time) {
	from := d.size
	inc, _ := policy.incrementBytes(from.Value()) // validated in resolve
	to := roundUpMi(from.Value() + inc)
	if to.Cmp(*policy.limit) > 0 {
		to = policy.limit.DeepCopy()
	}
	d.grew, d.from, d.size = true, from, to
	rec.Size, rec.LastGrowFrom = qptr(to), qptr(from)
	rec.LastGrowTime, rec.GrowInFlight = &metav1.Time{Time: now}, true
	d.recheck = policy.cooldown
}

// keptRecord is rec as observed, reported at the size in effect.
func keptRecord(rec *pgv1.StorageStatus, effective resource.Quantity, policy *autoGrowPolicy, resizing bool, now time.Time) *pgv1.StorageStatus {
	k := rec.DeepCopy()
	k.Size = qptr(effective)
	k.GrowInFlight = policy != nil && (resizing || k.LastGrowTime != nil && k.LastGrowTime.Add(policy.cooldown).After(now))
	return k
}

func belowLimit(policy *autoGrowPolicy) *condition {
	return &condition{false, pgv1.ReasonBelowLimit, fmt.Sprintf("auto-grow can raise the volumes up to %s", policy.limit.String())}
}

// roundUpMi rounds a byte count up to whole mebibytes, so that a grown
// size reads like one a person would write ("77Mi", not "80530637").
func roundUpMi(b int64) resource.Quantity {
	const mi = 1 << 20
	return *resource.NewQuantity((b+mi-1)/mi*mi, resource.BinarySI)
}

// bytesString is a measured size for people: "86.7 MiB" (a Quantity
// would print most measured sizes as a bare byte count).
func bytesString(b int64) string {
	return fmt.Sprintf("%.1f MiB", float64(b)/(1<<20))
}

func qptr(q resource.Quantity) *resource.Quantity { return &q }
