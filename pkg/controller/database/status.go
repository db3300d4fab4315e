package database

import (
	"context"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/pipeline"
)

func (p *pass) setPhase(phase pgv1.Phase, reason, message string) {
	p.Status().SetPhase(phase, reason, message)
}

// writeStatus is the pass's one status write (pipeline.StatusWriter).
// Written or not, the stored status is current again: a later deferral
// starts a new bound (staleSince).
func (c *Controller) writeStatus(ctx context.Context, db *pgv1.PostgresDatabase, st *pgv1.PostgresDatabaseStatus) error {
	if _, err := c.statusWriter().Write(ctx, db, st); err != nil {
		return err
	}
	c.stale.clear(types.NamespacedName{Namespace: db.Namespace, Name: db.Name})
	return nil
}

func (c *Controller) statusWriter() pipeline.StatusWriter[*pgv1.PostgresDatabase, pgv1.PostgresDatabaseStatus] {
	return pipeline.NewStatusWriter(c.pg.PostgresV1alpha1().PostgresDatabases, fieldManager, &c.expect, c.statusEvent)
}

func (c *Controller) statusEvent(ctx context.Context, db *pgv1.PostgresDatabase, st *pgv1.PostgresDatabaseStatus) {
	typ, reason, msg, emit := pipeline.StatusEvent(db.Status.Phase, st.Phase, db.Status.Conditions, st.Conditions)
	if !emit {
		return
	}
	c.recorder.Event(db, typ, reason, msg)
	klog.FromContext(ctx).V(2).Info("Phase changed", "database", klog.KObj(db), "from", db.Status.Phase, "to", st.Phase, "event", reason)
}
