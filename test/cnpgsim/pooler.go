package cnpgsim

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// poolerPhaseActive is the Pooler phase of a running PgBouncer.
const poolerPhaseActive = "active"

// pgBouncerRetry is how soon a Pooler whose Deployment is not yet its own
// is looked at again.
const pgBouncerRetry = 500 * time.Millisecond

// syncPooler gives a Pooler its Service, PgBouncer's Deployment and the
// status CNPG reports for running PgBouncer pods. No PgBouncer runs: the
// host map sends the Pooler's Service name straight to the Cluster's
// server.
func (s *Simulator) syncPooler(ctx context.Context, key cache.ObjectName) (time.Duration, error) {
	p, err := s.poolers.Poolers(key.Namespace).Get(key.Name)
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("get pooler: %w", err)
	}
	if p.DeletionTimestamp != nil {
		return 0, nil
	}
	owner := []metav1.OwnerReference{*metav1.NewControllerRef(p, cnpgv1.SchemeGroupVersion.WithKind("Pooler"))}
	selector := map[string]string{"cnpg.io/poolerName": p.Name}
	if err := s.ensureService(ctx, p.Namespace, p.Name, p.Spec.Cluster.Name, selector, owner); err != nil {
		return 0, err
	}
	replicas, ok, err := s.ensurePgBouncer(ctx, p, owner)
	if err != nil {
		return 0, err
	}
	if !ok {
		return pgBouncerRetry, nil
	}
	want := cnpgv1.PoolerStatus{Instances: replicas, Phase: poolerPhaseActive}
	if p.Status == want {
		return 0, nil
	}
	next := p.DeepCopy()
	next.Status = want
	if _, err := s.cnpg.CNPGV1().Poolers(p.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{FieldManager: s.opts.FieldManager}); err != nil {
		return 0, fmt.Errorf("update pooler status: %w", err)
	}
	return 0, nil
}
