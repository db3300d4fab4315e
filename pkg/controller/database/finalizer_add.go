package database

import (
	"context"
	"slices"
	"sync"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// addFinalizer puts our finalizer on a new db while alongside runs — the
// creation of its Secrets — instead of before it: a new database's first
// pass then waits for one round trip, not two. That order is safe because
// the roles and databases, which need the finalizer's cleanup, are written
// only later in the pass, once the finalizer is stored; Secrets made by a
// pass whose patch fails are owned by db and go with it. It returns db as
// stored.
func (c *Controller) addFinalizer(ctx context.Context, db *pgv1.PostgresDatabase, alongside func(context.Context)) (*pgv1.PostgresDatabase, error) {
	if slices.Contains(db.Finalizers, Finalizer) {
		return db, nil
	}
	var wg sync.WaitGroup
	wg.Go(func() { alongside(ctx) })
	defer wg.Wait()
	return ownership.AddFinalizer(ctx, c.pg.PostgresV1alpha1().PostgresDatabases(db.Namespace), db, Finalizer)
}
