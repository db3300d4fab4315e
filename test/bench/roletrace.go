package main

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"k8s.io/client-go/tools/cache"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/generated/informers/externalversions"
)

// roleTrace follows the role and database hand-overs of a phase's
// databases across the objects they pass through, so that the time a
// database spends in RolesPending can be split: the PostgresDatabase
// controller applies one CNPG DatabaseRole per role, CNPG (the stand-in)
// applies each and says so in its status (applied at its generation),
// which the database controller reads, and moves on; then likewise for
// the CNPG Database.
//
// DatabaseRoles and CNPG Databases are keyed by the Postgres names in
// their spec (role, database): in the shared backend these are unique
// server-wide, and the bench's names carry the run's prefix.
type roleTrace struct {
	prefix    string                     // database objects traced
	pgName    func(object string) string // the Postgres database of a database object
	clusterOf func(object string) string // its PostgresCluster, when the phase creates clusters too

	mu            sync.Mutex
	roleCreated   map[string]time.Time // role → its DatabaseRole exists (our apply)
	roleApplied   map[string]time.Time // role → CNPG's status: applied at the DatabaseRole's generation (stand-in)
	cnpgDB        map[string]time.Time // Postgres database → its CNPG Database exists (our apply)
	cnpgDBApplied map[string]time.Time // Postgres database → CNPG's status says applied (stand-in)
}

// roleSuffixes are the roles of a bench database, in the order the
// database controller applies their DatabaseRoles (credentialsOf): the
// first is the owner, <db>_admin. The bench asks for no read-only role.
var roleSuffixes = []string{"_admin", "_rw"}

func newRoleTrace(prefix string, pgName func(string) string) *roleTrace {
	return &roleTrace{prefix: prefix, pgName: pgName,
		roleCreated: map[string]time.Time{}, roleApplied: map[string]time.Time{},
		cnpgDB: map[string]time.Time{}, cnpgDBApplied: map[string]time.Time{}}
}

func first(m map[string]time.Time, k string, at time.Time) {
	if _, ok := m[k]; !ok {
		m[k] = at
	}
}

func (t *roleTrace) onDatabase(obj any) {
	d, ok := obj.(*cnpgv1.Database)
	if !ok {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	first(t.cnpgDB, d.Spec.Name, now)
	if d.Status.Applied != nil && *d.Status.Applied && d.Status.ObservedGeneration == d.Generation {
		first(t.cnpgDBApplied, d.Spec.Name, now)
	}
}

func (t *roleTrace) onDatabaseRole(obj any) {
	r, ok := obj.(*cnpgv1.DatabaseRole)
	if !ok {
		return
	}
	t.observeRole(r, time.Now())
}

// observeRole records r as seen at now: created, and applied once CNPG
// reports its current generation applied (what the database controller
// waits for, roleApplied).
func (t *roleTrace) observeRole(r *cnpgv1.DatabaseRole, now time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	first(t.roleCreated, r.Spec.Name, now)
	if st := r.Status; st.Applied != nil && *st.Applied && st.ObservedGeneration == r.Generation {
		first(t.roleApplied, r.Spec.Name, now)
	}
}

func (t *roleTrace) watch(ctx context.Context, b *bench, ns string) error {
	f := externalversions.NewSharedInformerFactoryWithOptions(b.pg, 0, externalversions.WithNamespace(ns))
	for inf, fn := range map[cache.SharedIndexInformer]func(any){
		f.CNPG().V1().DatabaseRoles().Informer(): t.onDatabaseRole,
		f.CNPG().V1().Databases().Informer():     t.onDatabase,
	} {
		if _, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: fn, UpdateFunc: func(_, o any) { fn(o) }}); err != nil {
			return err
		}
	}
	f.Start(ctx.Done())
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("informer %v did not sync", typ)
		}
	}
	return nil
}

// Stages of the hand-over, in the order they happen.
const (
	stRoleCreated = iota
	stRoleApplied
	stAllRolesApplied
	stLeftRoles
	stDBCreated
	stDBApplied
	stLeftDB
	stReady
	nStages
)

var stageNames = [nStages]string{
	stRoleCreated:     "DatabaseRole of its first role (<db>_admin) exists (our apply)",
	stRoleApplied:     "CNPG status: that DatabaseRole applied at its generation (stand-in)",
	stAllRolesApplied: "CNPG status: every DatabaseRole of it applied (stand-in)",
	stLeftRoles:       "PostgresDatabase leaves RolesPending",
	stDBCreated:       "CNPG Database exists (our apply)",
	stDBApplied:       "CNPG status: Database applied (stand-in)",
	stLeftDB:          "PostgresDatabase leaves DatabaseApplying",
	stReady:           "PostgresDatabase Ready",
}

// milestones returns, in order of their mean, the mean time from apply to
// each step of the hand-over over the databases seen through all of them,
// with the database's own Ready (and, in the convergence phase, its
// PostgresCluster's) for reference.
func (t *roleTrace) milestones(r *readiness) []string {
	r.mu.Lock()
	applied := maps2(r.applied)
	ready := maps2(r.ready)
	left, leftDB := map[string]time.Time{}, map[string]time.Time{}
	for k, steps := range r.steps {
		// The first state after the last RolesPending (DatabaseApplying) one.
		for i, s := range steps {
			if strings.Contains(s.state, "RolesPending") && i+1 < len(steps) {
				left[k] = steps[i+1].at
			}
			if strings.Contains(s.state, "DatabaseApplying") && i+1 < len(steps) {
				leftDB[k] = steps[i+1].at
			}
		}
	}
	// A wait never written (status deferred it) ends with the next state
	// written: DatabaseApplying often goes straight to Ready.
	for k, at := range ready {
		if _, ok := leftDB[k]; !ok {
			leftDB[k] = at
		}
	}
	r.mu.Unlock()
	t.mu.Lock()
	defer t.mu.Unlock()
	names := stageNames[:]
	sums := make([]time.Duration, nStages)
	var standIn, clusterReady time.Duration
	n := 0
	for key, at := range applied {
		db, ok := strings.CutPrefix(key, "database/")
		if !ok || !strings.HasPrefix(db, t.prefix) {
			continue
		}
		pgdb := t.pgName(db)
		var steps [nStages]time.Time
		steps[stRoleCreated] = t.roleCreated[pgdb+roleSuffixes[0]]
		steps[stRoleApplied] = t.roleApplied[pgdb+roleSuffixes[0]]
		firstCreated := steps[stRoleCreated]
		for _, s := range roleSuffixes {
			c, a := t.roleCreated[pgdb+s], t.roleApplied[pgdb+s]
			if a.IsZero() {
				steps[stAllRolesApplied] = time.Time{}
				break
			}
			if a.After(steps[stAllRolesApplied]) {
				steps[stAllRolesApplied] = a
			}
			if !c.IsZero() && c.Before(firstCreated) {
				firstCreated = c
			}
		}
		steps[stLeftRoles] = left[key]
		if steps[stLeftRoles].IsZero() {
			// RolesPending never written: the database left it when it
			// created its CNPG Database.
			steps[stLeftRoles] = t.cnpgDB[pgdb]
		}
		steps[stDBCreated], steps[stDBApplied] = t.cnpgDB[pgdb], t.cnpgDBApplied[pgdb]
		steps[stLeftDB], steps[stReady] = leftDB[key], ready[key]
		if slices.ContainsFunc(steps[:], time.Time.IsZero) {
			continue
		}
		for i, s := range steps {
			sums[i] += s.Sub(at)
		}
		// The stand-in's own work: the first DatabaseRole created → the
		// last applied, Database created → applied. The Database starts
		// once the owner role is applied, while the others may still be
		// in hand: the two overlap, and their union is the time the
		// database waited on CNPG, not their sum.
		standIn += unionOf(firstCreated, steps[stAllRolesApplied], steps[stDBCreated], steps[stDBApplied])
		if t.clusterOf != nil {
			clusterReady += ready["cluster/"+t.clusterOf(db)].Sub(at)
		}
		n++
	}
	if n == 0 {
		return nil
	}
	total := sums[stReady].Seconds() / float64(n)
	si := standIn.Seconds() / float64(n)
	idx := make([]int, len(names))
	for i := range idx {
		idx[i] = i
	}
	out := []string{fmt.Sprintf("over %d databases, mean time after apply:", n)}
	if t.clusterOf != nil {
		names = append(names, "its PostgresCluster Ready")
		sums = append(sums, clusterReady)
		idx = append(idx, len(idx))
	}
	sort.SliceStable(idx, func(a, b int) bool { return sums[idx[a]] < sums[idx[b]] })
	for _, i := range idx {
		out = append(out, fmt.Sprintf("%6.3fs  %s", sums[i].Seconds()/float64(n), names[i]))
	}
	out = append(out, fmt.Sprintf("of the mean %.3fs to Ready, the stand-in's own work (DatabaseRoles applied, CREATE DATABASE; the union of their intervals) is %.3fs, the rest %.3fs",
		total, si, total-si))
	return out
}

// unionOf is the length of the union of the intervals [a0, a1] and
// [b0, b1].
func unionOf(a0, a1, b0, b1 time.Time) time.Duration {
	if b0.Before(a0) {
		a0, a1, b0, b1 = b0, b1, a0, a1
	}
	if !b0.After(a1) { // they overlap: one interval from a0
		return maxTime(a1, b1).Sub(a0)
	}
	return a1.Sub(a0) + b1.Sub(b0)
}

func maxTime(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

func maps2(m map[string]time.Time) map[string]time.Time {
	out := make(map[string]time.Time, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
