package cluster

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/collector"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// sizeInEffect is the volume size before this pass's judgement: the
// spec's, raised to the size auto-grow last grew to, as the mark on our
// CNPG Cluster records it (storage_mark.go). With auto-grow on, a CNPG
// Cluster of ours that runs larger (up to the limit) counts too: a grow
// made by an earlier setpoint that wrote no mark, or by a retained
// cluster's previous owner, and a volume cannot shrink.
//
// Status is not read: it reports, and an edited status must not buy a
// volume beyond what the spec allows.
func sizeInEffect(pc *pgv1.PostgresCluster, d *desired, running *cnpgv1.Cluster) resource.Quantity {
	size := d.SpecStorageSize
	if m, ok := grownMark(pc, running); ok && m.Size.Cmp(size) > 0 {
		size = m.Size
	}
	if d.AutoGrow == nil {
		return size
	}
	if have, ok := runningSize(pc, running); ok && have.Cmp(size) > 0 && have.Cmp(*d.AutoGrow.limit) <= 0 {
		size = have
	}
	return size
}

// runningSize is the volume size of the CNPG Cluster that holds this
// PostgresCluster's data (runsFor), false when there is none or it names
// no parseable size.
func runningSize(pc *pgv1.PostgresCluster, running *cnpgv1.Cluster) (resource.Quantity, bool) {
	if running == nil || running.Spec.Storage == nil || !runsFor(pc, running) {
		return resource.Quantity{}, false
	}
	have, err := resource.ParseQuantity(running.Spec.Storage.Size)
	return have, err == nil
}

// planStorage judges the collector's last sample (nil when none) and
// settles the size and the mark the provisioner applies; status.storage
// and StorageAtLimit report the decision (settleStorage takes back a grow
// that did not reach the CNPG Cluster). Events wait for the status write
// (storageEvents).
func (p *pass) planStorage(sample *collector.Sample) growDecision {
	t := p.deps.clock.Now()
	resizing := p.obs.cnpg != nil && len(p.obs.cnpg.Status.ResizingPVC) > 0
	prev := observedGrow(p.cluster, p.obs.cnpg, t)
	d := decideGrow(p.want.StorageSize, p.want.SpecStorageSize, p.want.AutoGrow, prev, sample, resizing, t)
	p.want.StorageSize, p.want.StorageMark = d.size, markOf(d.record)
	p.status.Storage = d.record
	switch {
	case p.want.AutoGrow == nil:
		meta.RemoveStatusCondition(&p.status.Conditions, pgv1.ConditionStorageAtLimit)
	case d.atLimit != nil:
		c := d.atLimit
		pipeline.SetCondition(&p.status.Conditions, p.cluster.Generation, pgv1.ConditionStorageAtLimit, c.status, c.reason, c.message)
	}
	return d
}

// storageEvents announces a grow, and the limit when it is first reached;
// called once the status that records them is written.
func (c *Controller) storageEvents(ctx context.Context, pc *pgv1.PostgresCluster, st *pgv1.PostgresClusterStatus, d growDecision) {
	if d.grew {
		msg := fmt.Sprintf("Grew the data volumes from %s to %s", d.from.String(), d.size.String())
		if d.usage != "" {
			msg += ": " + d.usage
		}
		c.deps.recorder.Event(pc, corev1.EventTypeNormal, pgv1.EventStorageGrown, msg)
		klog.FromContext(ctx).Info("Storage grown", "cluster", klog.KObj(pc), "from", d.from.String(), "to", d.size.String(), "usage", d.usage)
	}
	was := meta.IsStatusConditionTrue(pc.Status.Conditions, pgv1.ConditionStorageAtLimit)
	if cond := meta.FindStatusCondition(st.Conditions, pgv1.ConditionStorageAtLimit); cond != nil && cond.Status == "True" && !was {
		c.deps.recorder.Eventf(pc, corev1.EventTypeWarning, pgv1.EventStorageAtLimit, "%s; %s", d.usage, cond.Message)
	}
}
