package database

import (
	"context"
	"fmt"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
)

// setPhase sets phase, observedGeneration and the Ready condition, which
// is True only when the whole pipeline is.
func (p *pass) setPhase(phase pgv1.Phase, reason, message string) {
	p.status.Phase = phase
	p.status.ObservedGeneration = p.db.Generation
	controller.SetCondition(&p.status.Conditions, p.db.Generation, pgv1.ConditionReady, phase == pgv1.PhaseReady, reason, message)
}

// writeStatus writes status once, and not at all when nothing changed.
// An Event marks the transitions people care about (controller.PhaseEvent).
// Either way the stored status is current again: a later deferral starts
// a new bound (staleSince).
func (c *Controller) writeStatus(ctx context.Context, db *pgv1.PostgresDatabase, st *pgv1.PostgresDatabaseStatus) error {
	key := types.NamespacedName{Namespace: db.Namespace, Name: db.Name}
	if apiequality.Semantic.DeepEqual(&db.Status, st) {
		c.stale.clear(key)
		return nil
	}
	updated := db.DeepCopy()
	updated.Status = *st
	res, err := c.pg.PostgresV1alpha1().PostgresDatabases(db.Namespace).UpdateStatus(ctx, updated, metav1.UpdateOptions{FieldManager: fieldManager})
	if err != nil {
		return fmt.Errorf("update status: %w", err)
	}
	c.lag.Wrote(key, db.ResourceVersion, res.ResourceVersion)
	c.stale.clear(key)
	c.statusEvent(ctx, db, st)
	return nil
}

func (c *Controller) statusEvent(ctx context.Context, db *pgv1.PostgresDatabase, st *pgv1.PostgresDatabaseStatus) {
	typ, reason, msg, emit := controller.StatusEvent(db.Status.Phase, st.Phase, db.Status.Conditions, st.Conditions)
	if !emit {
		return
	}
	c.recorder.Event(db, typ, reason, msg)
	klog.FromContext(ctx).V(2).Info("Phase changed", "database", klog.KObj(db), "from", db.Status.Phase, "to", st.Phase, "event", reason)
}
