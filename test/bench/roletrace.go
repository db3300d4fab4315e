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
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/informers/externalversions"
)

// roleTrace follows the role and database hand-overs of a phase's databases
// across the objects it passes through, so that the time a database
// spends in RolesPending can be split: the cluster takes on the claim and
// applies spec.managed.roles, CNPG (the stand-in) reconciles the role and
// says so in its status, which the database controller reads, and moves
// on; then likewise for the CNPG Database.
type roleTrace struct {
	prefix    string                     // database objects traced
	pgName    func(object string) string // the Postgres database of a database object
	clusterOf func(object string) string // its PostgresCluster, when the phase creates clusters too

	mu             sync.Mutex
	role           map[string]string    // database object → its first role
	owned          map[string]time.Time // database object → the PostgresCluster's status names it owner of its role
	inSpec         map[string]time.Time // role → in the CNPG Cluster's spec.managed.roles
	cnpgReconciled map[string]time.Time // role → CNPG's status reports it reconciled
	cnpgDB         map[string]time.Time // Postgres database → its CNPG Database exists (our apply)
	cnpgDBApplied  map[string]time.Time // Postgres database → CNPG's status says applied (stand-in)
}

func newRoleTrace(prefix string, pgName func(string) string) *roleTrace {
	return &roleTrace{prefix: prefix, pgName: pgName, role: map[string]string{}, owned: map[string]time.Time{},
		inSpec: map[string]time.Time{}, cnpgReconciled: map[string]time.Time{},
		cnpgDB: map[string]time.Time{}, cnpgDBApplied: map[string]time.Time{}}
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
	if d.Status.Applied != nil && *d.Status.Applied {
		first(t.cnpgDBApplied, d.Spec.Name, now)
	}
}

func first(m map[string]time.Time, k string, at time.Time) {
	if _, ok := m[k]; !ok {
		m[k] = at
	}
}

func (t *roleTrace) onCluster(obj any) {
	c, ok := obj.(*pgv1.PostgresCluster)
	if !ok || c.Status.ManagedRolesStatus == nil {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	mrs := c.Status.ManagedRolesStatus
	for _, o := range mrs.Owners {
		if strings.HasPrefix(o.Owner.Name, t.prefix) {
			if _, ok := t.role[o.Owner.Name]; !ok {
				t.role[o.Owner.Name] = o.Role
			}
			first(t.owned, o.Owner.Name, now)
		}
	}
}

func (t *roleTrace) onCNPG(obj any) {
	c, ok := obj.(*cnpgv1.Cluster)
	if !ok {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	if c.Spec.Managed != nil {
		for _, r := range c.Spec.Managed.Roles {
			first(t.inSpec, r.Name, now)
		}
	}
	if s := c.Status.ManagedRolesStatus; s != nil {
		for _, r := range s.ByStatus[cnpgv1.RoleStatusReconciled] {
			first(t.cnpgReconciled, r, now)
		}
	}
}

func (t *roleTrace) watch(ctx context.Context, b *bench, ns string) error {
	f := externalversions.NewSharedInformerFactoryWithOptions(b.pg, 0, externalversions.WithNamespace(ns))
	for inf, fn := range map[cache.SharedIndexInformer]func(any){
		f.CNPG().V1().Clusters().Informer():                   t.onCNPG,
		f.Postgres().V1alpha1().PostgresClusters().Informer(): t.onCluster,
		f.CNPG().V1().Databases().Informer():                  t.onDatabase,
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

// milestones returns, in order of their mean, the mean time from apply to
// each step of the hand-over over the databases seen through all of them,
// with the database's own Ready for reference.
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
	names := []string{"PostgresCluster status names the database owner of its role",
		"role in the CNPG Cluster's spec.managed.roles (our apply)",
		"CNPG status: role reconciled (stand-in)",
		"PostgresDatabase leaves RolesPending",
		"CNPG Database exists (our apply)",
		"CNPG status: Database applied (stand-in)",
		"PostgresDatabase leaves DatabaseApplying",
		"PostgresDatabase Ready"}
	sums := make([]time.Duration, len(names))
	var standIn, clusterReady time.Duration
	n := 0
	for db, role := range t.role {
		key := "database/" + db
		at, ok := applied[key]
		pgdb := t.pgName(db)
		leftRoles := left[key]
		if leftRoles.IsZero() {
			// RolesPending never written: the database left it when it
			// created its CNPG Database.
			leftRoles = t.cnpgDB[pgdb]
		}
		steps := []time.Time{t.owned[db], t.inSpec[role], t.cnpgReconciled[role], leftRoles,
			t.cnpgDB[pgdb], t.cnpgDBApplied[pgdb], leftDB[key], ready[key]}
		if !ok || slices.ContainsFunc(steps, time.Time.IsZero) {
			continue
		}
		for i, s := range steps {
			sums[i] += s.Sub(at)
		}
		// The stand-in's own work: role spec → reconciled, Database
		// created → applied.
		standIn += steps[2].Sub(steps[1]) + steps[5].Sub(steps[4])
		if t.clusterOf != nil {
			clusterReady += ready["cluster/"+t.clusterOf(db)].Sub(at)
		}
		n++
	}
	if n == 0 {
		return nil
	}
	total := sums[len(sums)-1].Seconds() / float64(n) // Ready
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
	out = append(out, fmt.Sprintf("of the mean %.3fs to Ready, the stand-in's own work (role reconcile, CREATE DATABASE) is %.3fs, the rest %.3fs",
		total, si, total-si))
	return out
}

func maps2(m map[string]time.Time) map[string]time.Time {
	out := make(map[string]time.Time, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
