package main

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
)

// Since issue 28 every role is a CNPG DatabaseRole, and CloudNativePG's
// instance manager applies a Cluster's DatabaseRoles one at a time, each
// with three writes of its own: the operator's PasswordSecretChange
// condition (for a role with a password Secret), the finalizer, and the
// applied status. That chain is on the critical path of any operator that
// uses DatabaseRoles, however fast it is, so the lower bound runs it too:
// one goroutine per Cluster, as CNPG runs one instance manager per Pod,
// applying the loop's DatabaseRoles in the order they come, with a client
// of its own (not counted with the loop's requests, not held to the
// operator's rate limit: CNPG's are its own) and one connection kept open
// (CNPG's instance manager keeps a pool). The stand-in does the same
// work (test/cnpgsim/databaserole.go), plus reads the loop leaves out.

// cnpgInstances are the lower bound's instance managers, one per Cluster.
type cnpgInstances struct {
	lb     *lowerBound
	client versioned.Interface
	mu     sync.Mutex
	byName map[string]chan roleJob
	wg     sync.WaitGroup
}

// roleJob is one DatabaseRole to apply: the object as the loop applied it,
// the version of its password Secret ("" without one), CNPG's SQL for it,
// and where to say it is done.
type roleJob struct {
	role     *cnpgv1.DatabaseRole
	secretRV string
	stmts    []string
	done     chan error
}

// submit hands the role to its Cluster's instance manager; the channel
// says when it is applied.
func (in *cnpgInstances) submit(ctx context.Context, role *cnpgv1.DatabaseRole, secretRV string, stmts ...string) (<-chan error, error) {
	job := roleJob{role: role, secretRV: secretRV, stmts: stmts, done: make(chan error, 1)}
	select {
	case in.queue(ctx, role.Spec.Cluster.Name) <- job:
		return job.done, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// wait waits until every submitted role is applied.
func wait(ctx context.Context, done ...<-chan error) error {
	for _, d := range done {
		select {
		case err := <-d:
			if err != nil {
				return err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// slots are a worker pool's places: a goroutine holds one while it works
// (not while it waits for CNPG), with the connection to database postgres
// that place keeps, as the operator's workers are freed while a pass
// waits.
type slots chan **pgx.Conn

func newSlots(n int) slots {
	s := make(slots, n)
	for range n {
		s <- new(*pgx.Conn)
	}
	return s
}

func (s slots) do(ctx context.Context, fn func(conn **pgx.Conn) error) error {
	select {
	case c := <-s:
		defer func() { s <- c }()
		return fn(c)
	case <-ctx.Done():
		return ctx.Err()
	}
}

// close closes the connections once every place is back.
func (s slots) close() {
	for range cap(s) {
		if c := <-s; *c != nil {
			_ = (*c).Close(context.Background())
		}
	}
}

func (in *cnpgInstances) queue(ctx context.Context, cluster string) chan roleJob {
	in.mu.Lock()
	defer in.mu.Unlock()
	if q, ok := in.byName[cluster]; ok {
		return q
	}
	q := make(chan roleJob, 64)
	in.byName[cluster] = q
	in.wg.Go(func() { in.run(ctx, q) })
	return q
}

// stop ends every instance manager once its queue is drained.
func (in *cnpgInstances) stop() {
	in.mu.Lock()
	for _, q := range in.byName {
		close(q)
	}
	in.mu.Unlock()
	in.wg.Wait()
}

func (in *cnpgInstances) run(ctx context.Context, q chan roleJob) {
	var conn *pgx.Conn
	defer func() {
		if conn != nil {
			_ = conn.Close(context.WithoutCancel(ctx))
		}
	}()
	for job := range q {
		job.done <- in.reconcile(ctx, &conn, job)
	}
}

// reconcile is CNPG's work for one new DatabaseRole: the operator's
// password condition, then the instance manager's finalizer, SQL and
// status.
func (in *cnpgInstances) reconcile(ctx context.Context, conn **pgx.Conn, job roleJob) error {
	r := job.role
	if job.secretRV != "" {
		cond := metav1.Condition{Type: cnpgv1.DatabaseRoleConditionPasswordSecretChange, Status: metav1.ConditionTrue,
			Reason: "ChangeDetected", Message: job.secretRV, LastTransitionTime: metav1.Now()}
		if err := in.patch(ctx, r, map[string]any{"status": map[string]any{"conditions": []metav1.Condition{cond}}}, "status"); err != nil {
			return err
		}
	}
	if err := in.patch(ctx, r, map[string]any{"metadata": map[string]any{"finalizers": []string{"cnpg.io/deleteRole"}}}); err != nil {
		return err
	}
	if err := in.lb.exec(ctx, conn, job.stmts...); err != nil {
		return err
	}
	return in.patch(ctx, r, map[string]any{"status": map[string]any{
		"applied": true, "observedGeneration": r.Generation, "secretResourceVersion": job.secretRV}}, "status")
}

func (in *cnpgInstances) patch(ctx context.Context, r *cnpgv1.DatabaseRole, patch map[string]any, subresources ...string) error {
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	cctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if _, err := in.client.CNPGV1().DatabaseRoles(r.Namespace).Patch(cctx, r.Name, types.MergePatchType, data,
		metav1.PatchOptions{FieldManager: "cnpg-lower-bound"}, subresources...); err != nil {
		return fmt.Errorf("databaserole %s: %w", r.Name, err)
	}
	return nil
}
