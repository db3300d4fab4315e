package cluster

import (
	"context"
	"fmt"
	"time"

	"k8s.io/apimachinery/pkg/types"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

// settledProvisioner is the provisioner as the pipeline runs it: its
// Observe, and every component after it, see CNPG's status as settled
// (provisioner_settle.go) rather than as it is this millisecond, and a restore
// that CNPG reports failed is Failed with RestoreFailed.
type settledProvisioner struct{ provisionerComponent }

func (s settledProvisioner) Observe(ctx context.Context, p *pass, err error) health {
	var recheck time.Duration
	view := cnpgView{}
	if p.provisioner.cnpg != nil {
		view, recheck = p.deps.settle.view(ctx, types.NamespacedName{Namespace: p.cluster.Namespace, Name: p.cluster.Name}, p.provisioner.cnpg)
		p.provisioner.cnpg = view.applyTo(p.provisioner.cnpg)
	}
	h := s.provisionerComponent.Observe(ctx, p, err)
	h.RequeueAfter = pipeline.Soonest(h.RequeueAfter, recheck)
	if h.Phase == pgv1.PhaseFailed && h.Reason == pgv1.ReasonCNPGFailed {
		if r := p.cluster.Spec.Restore; r != nil && !view.bootstrapped() {
			h.Reason = pgv1.ReasonRestoreFailed
			h.Message = fmt.Sprintf("restore of %q from ObjectStore %q failed: %s", r.Source, restoreObjectStore(p, r), h.Message)
		}
	}
	return h
}
