package cluster

import (
	"encoding/json"
	"time"

	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// storageMarkAnnotation records auto-grow's last grow on the CNPG Cluster
// setpoint writes, in the same apply as the size it grew to:
// {"size":"116Mi","from":"96Mi","at":"2026-11-30T12:00:00Z"}. It is what
// auto-grow decides from — the grown size a volume cannot go back from, and
// the cooldown window, across operator restarts — because status is only
// a report: anyone who may edit a PostgresCluster's status could otherwise
// buy a larger volume, open a window that suppresses every grow, or close
// one. Written with the size, it cannot be lost between the two either.
const storageMarkAnnotation = "postgres.setpoint.dev/storage-grown"

// markClockSkew is how far in the future a mark's time may be and still be
// one setpoint wrote (an operator on another node, with another clock,
// wrote it). A later time is not setpoint's, and no window is read from it.
const markClockSkew = time.Minute

type storageMark struct {
	Size resource.Quantity `json:"size"`
	From resource.Quantity `json:"from"`
	At   metav1.Time       `json:"at"`
}

// grownMark is the mark of the CNPG Cluster that holds this
// PostgresCluster's data, when it is one setpoint may have written: it
// parses, and the Cluster runs at least the size it names (a mark beyond
// what runs buys nothing).
func grownMark(pc *pgv1.PostgresCluster, running *cnpgv1.Cluster) (*storageMark, bool) {
	have, ok := runningSize(pc, running)
	if !ok {
		return nil, false
	}
	var m storageMark
	if err := json.Unmarshal([]byte(running.Annotations[storageMarkAnnotation]), &m); err != nil {
		return nil, false
	}
	if m.Size.Sign() <= 0 || m.Size.Cmp(have) > 0 {
		return nil, false
	}
	return &m, true
}

// observedGrow is the record auto-grow decides from: the mark of the
// running CNPG Cluster, nil when there is none. A mark's time later than
// now (beyond clock skew) is dropped: setpoint writes the time it grows.
func observedGrow(pc *pgv1.PostgresCluster, running *cnpgv1.Cluster, now time.Time) *pgv1.StorageStatus {
	m, ok := grownMark(pc, running)
	if !ok {
		return nil
	}
	rec := &pgv1.StorageStatus{Size: qptr(m.Size), LastGrowFrom: qptr(m.From)}
	if !m.At.IsZero() && !m.At.After(now.Add(markClockSkew)) {
		rec.LastGrowTime = m.At.DeepCopy()
	}
	return rec
}

// markOf is the mark that records rec's grow, "" when rec records none.
func markOf(rec *pgv1.StorageStatus) string {
	if rec == nil || rec.LastGrowTime == nil || rec.Size == nil || rec.LastGrowFrom == nil {
		return ""
	}
	b, err := json.Marshal(storageMark{Size: *rec.Size, From: *rec.LastGrowFrom, At: metav1.NewTime(rec.LastGrowTime.UTC())})
	if err != nil {
		return "" // three plain values: cannot fail
	}
	return string(b)
}

// markMatches says whether the observed CNPG Cluster carries the mark this
// pass applies. A mark to drop ("") is not applied for: SSA removes it with
// the next change, and one someone else wrote is ignored anyway.
func markMatches(cur *cnpgv1.Cluster, want string) bool {
	return want == "" || cur.Annotations[storageMarkAnnotation] == want
}

// withStorageMark adds the mark to the annotations the provisioner applies.
func withStorageMark(annotations map[string]string, want string) map[string]string {
	if want != "" {
		annotations[storageMarkAnnotation] = want
	}
	return annotations
}

// growApplied says whether the CNPG Cluster as this pass left it runs the
// size decided and carries its mark.
func (p *pass) growApplied(d growDecision) bool {
	cl := p.appliedCNPG()
	return cl != nil && cl.Spec.Storage != nil && cl.Spec.Storage.Size == d.size.String() && markMatches(cl, p.want.StorageMark)
}

// settleStorage keeps the report to what reached the CNPG Cluster: a grow
// this pass decided but did not apply (the pipeline stopped before the
// provisioner, or its apply failed) is neither reported nor announced, so
// that a blocked cluster's passes do not each report a new grow time; the
// next pass decides again from the CNPG Cluster.
func (p *pass) settleStorage(d growDecision) growDecision {
	if !d.grew || p.growApplied(d) {
		return d
	}
	p.status.Storage = d.kept
	d.grew = false
	return d
}
