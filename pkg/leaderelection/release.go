package leaderelection

import (
	"context"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
)

// watchRelease calls released when the Lease's holder gives it up (its
// holderIdentity is cleared, as a leader does on a graceful stop) or the
// Lease is deleted. A standby otherwise notices only at its next retry,
// up to RetryPeriod plus jitter later; restarting its campaign on this
// signal takes the Lease at once. Only transitions count, so a Lease that
// stays free cannot make the campaign restart in a loop.
func watchRelease(ctx context.Context, client kubernetes.Interface, cfg Config, released func()) {
	selector := fields.OneTermEqualSelector("metadata.name", cfg.Name).String()
	for ctx.Err() == nil {
		w, err := client.CoordinationV1().Leases(cfg.Namespace).Watch(ctx, metav1.ListOptions{FieldSelector: selector})
		if err != nil {
			select {
			case <-ctx.Done():
			case <-time.After(cfg.RetryPeriod):
			}
			continue
		}
		for ev := range w.ResultChan() {
			if isRelease(ev) {
				w.Stop()
				released()
				return
			}
		}
	}
}

func isRelease(ev watch.Event) bool {
	switch ev.Type {
	case watch.Deleted:
		return true
	case watch.Modified:
		l, ok := ev.Object.(*coordinationv1.Lease)
		return ok && (l.Spec.HolderIdentity == nil || *l.Spec.HolderIdentity == "")
	}
	return false
}
