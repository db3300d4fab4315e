package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/pkg/generated/informers/externalversions"
)

// workload names the objects of one convergence run.
type workload struct {
	ns       string
	class    string
	clusters int
	perDB    int
	// prefix makes database names distinct across runs: roles and
	// databases are server-wide in the shared backend.
	prefix string
}

func (w workload) clusterName(i int) string { return fmt.Sprintf("c%03d", i) }
func (w workload) dbObject(i, j int) string { return fmt.Sprintf("c%03d-d%d", i, j) }
func (w workload) dbName(i, j int) string   { return fmt.Sprintf("%sc%03dd%d", w.prefix, i, j) }
func (w workload) objects() int             { return w.clusters * (1 + w.perDB) }

func ensureNamespace(ctx context.Context, kube kubernetes.Interface, name string) error {
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
	_, err := kube.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

func ensureClass(ctx context.Context, pg versioned.Interface, name string) error {
	c := &pgv1.PostgresClusterClass{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: pgv1.PostgresClusterClassSpec{ClusterSettings: pgv1.ClusterSettings{
			Instances: ptr.To[int32](1), PostgresVersion: ptr.To[int32](15),
			// The shared backend holds every cluster's databases, so each
			// cluster's sampled usage is the whole server's: a volume this
			// size keeps the collector's usage thresholds (StorageNearlyFull)
			// out of the figures.
			Storage: &pgv1.StorageSpec{Size: ptr.To(resource.MustParse("1Ti"))},
		}},
	}
	_, err := pg.PostgresV1alpha1().PostgresClusterClasses().Create(ctx, c, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}

// created is one object as the creator saw it.
type created struct {
	kind    string // "cluster" or "database"
	name    string
	cluster int
	db      int
	at      time.Time // just before the create call
	obj     metav1.Object
	dbObj   *pgv1.PostgresDatabase
	cluObj  *pgv1.PostgresCluster
}

// createAll creates every PostgresCluster, then every PostgresDatabase,
// with `parallel` concurrent creators (as `kubectl apply` of a directory
// would, only faster), calling each(obj) after every create. It returns
// the start time (just before the first create).
func createAll(ctx context.Context, pg versioned.Interface, w workload, parallel int, each func(created)) (time.Time, error) {
	type job struct{ i, j int } // j < 0: the cluster
	jobs := make(chan job)
	var firstErr error
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range parallel {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for jb := range jobs {
				c := created{cluster: jb.i, db: jb.j, at: time.Now()}
				var err error
				if jb.j < 0 {
					c.kind, c.name = "cluster", w.clusterName(jb.i)
					obj := &pgv1.PostgresCluster{
						ObjectMeta: metav1.ObjectMeta{Name: c.name, Namespace: w.ns},
						Spec:       pgv1.PostgresClusterSpec{Class: w.class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete},
					}
					c.cluObj, err = pg.PostgresV1alpha1().PostgresClusters(w.ns).Create(ctx, obj, metav1.CreateOptions{})
					if err == nil {
						c.obj = c.cluObj
					}
				} else {
					c.kind, c.name = "database", w.dbObject(jb.i, jb.j)
					obj := &pgv1.PostgresDatabase{
						ObjectMeta: metav1.ObjectMeta{Name: c.name, Namespace: w.ns},
						Spec: pgv1.PostgresDatabaseSpec{
							ClusterRef: pgv1.ClusterReference{Name: w.clusterName(jb.i)},
							Databases:  []pgv1.DatabaseSpec{{Name: w.dbName(jb.i, jb.j)}},
						},
					}
					c.dbObj, err = pg.PostgresV1alpha1().PostgresDatabases(w.ns).Create(ctx, obj, metav1.CreateOptions{})
					if err == nil {
						c.obj = c.dbObj
					}
				}
				if err != nil {
					mu.Lock()
					if firstErr == nil {
						firstErr = fmt.Errorf("create %s %s: %w", c.kind, c.name, err)
					}
					mu.Unlock()
					continue
				}
				if each != nil {
					each(c)
				}
			}
		}()
	}
	start := time.Now()
	func() {
		defer close(jobs)
		for i := range w.clusters {
			select {
			case jobs <- job{i, -1}:
			case <-ctx.Done():
				return
			}
		}
		for j := range w.perDB {
			for i := range w.clusters {
				select {
				case jobs <- job{i, j}:
				case <-ctx.Done():
					return
				}
			}
		}
	}()
	wg.Wait()
	if firstErr == nil {
		firstErr = ctx.Err()
	}
	return start, firstErr
}

// readiness records, from informers, the first moment each object is
// phase Ready at its current generation.
type readiness struct {
	mu       sync.Mutex
	applied  map[string]time.Time
	ready    map[string]time.Time
	want     int
	allReady chan struct{}
	closed   bool
	phases   map[string]pgv1.Phase // last phase seen, for progress and timeouts
	// only, when set, is the key prefix this tracker counts; other
	// objects in the namespace (an earlier phase's) are ignored.
	only string
	// steps, when not nil, records each object's states (phase and the
	// first condition not True) as they change, to say where time goes.
	steps map[string][]stateStep
}

// stateStep is one observed state of an object.
type stateStep struct {
	at    time.Time
	state string
}

func newReadiness(want int) *readiness {
	return &readiness{applied: map[string]time.Time{}, ready: map[string]time.Time{}, want: want,
		allReady: make(chan struct{}), phases: map[string]pgv1.Phase{}}
}

func (r *readiness) markApplied(key string, at time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, ok := r.applied[key]; !ok {
		r.applied[key] = at
	}
}

func (r *readiness) observe(key string, phase pgv1.Phase, ready bool, conds []metav1.Condition) {
	if r.only != "" && !strings.HasPrefix(key, r.only) {
		return
	}
	now := time.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.phases[key] = phase
	if r.steps != nil {
		st := stateOf(phase, conds)
		if s := r.steps[key]; len(s) == 0 || s[len(s)-1].state != st {
			r.steps[key] = append(s, stateStep{now, st})
		}
	}
	if !ready {
		return
	}
	if _, ok := r.ready[key]; ok {
		return
	}
	r.ready[key] = now
	if len(r.ready) >= r.want && !r.closed {
		r.closed = true
		close(r.allReady)
	}
}

func (r *readiness) progress() (ready int, byPhase map[pgv1.Phase]int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	byPhase = map[pgv1.Phase]int{}
	for k, p := range r.phases {
		if _, ok := r.ready[k]; !ok {
			byPhase[p]++
		}
	}
	return len(r.ready), byPhase
}

// latencies returns apply→Ready durations of objects whose key has prefix
// ("cluster/" or "database/"), sorted.
func (r *readiness) latencies(prefix string) []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []time.Duration
	for k, at := range r.ready {
		if len(k) < len(prefix) || k[:len(prefix)] != prefix {
			continue
		}
		if ap, ok := r.applied[k]; ok {
			out = append(out, at.Sub(ap))
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

func (r *readiness) lastReady() time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	var last time.Time
	for _, t := range r.ready {
		if t.After(last) {
			last = t
		}
	}
	return last
}

// watchReadiness starts namespaced informers feeding r; stop with ctx.
func watchReadiness(ctx context.Context, pg versioned.Interface, ns string, r *readiness) error {
	f := externalversions.NewSharedInformerFactoryWithOptions(pg, 0, externalversions.WithNamespace(ns))
	ci := f.Postgres().V1alpha1().PostgresClusters().Informer()
	di := f.Postgres().V1alpha1().PostgresDatabases().Informer()
	onCluster := func(obj any) {
		if c, ok := obj.(*pgv1.PostgresCluster); ok {
			r.observe("cluster/"+c.Name, c.Status.Phase,
				c.Status.Phase == pgv1.PhaseReady && c.Status.ObservedGeneration == c.Generation, c.Status.Conditions)
		}
	}
	onDB := func(obj any) {
		if d, ok := obj.(*pgv1.PostgresDatabase); ok {
			r.observe("database/"+d.Name, d.Status.Phase,
				d.Status.Phase == pgv1.PhaseReady && d.Status.ObservedGeneration == d.Generation, d.Status.Conditions)
		}
	}
	if _, err := ci.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onCluster, UpdateFunc: func(_, n any) { onCluster(n) }}); err != nil {
		return err
	}
	if _, err := di.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc: onDB, UpdateFunc: func(_, n any) { onDB(n) }}); err != nil {
		return err
	}
	f.Start(ctx.Done())
	for typ, ok := range f.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return fmt.Errorf("informer %v did not sync", typ)
		}
	}
	return nil
}

// stateOf names a status: its phase and its first condition that is not
// True, with the reason ("Provisioning/RolesReady:RolesPending").
func stateOf(phase pgv1.Phase, conds []metav1.Condition) string {
	st := string(phase)
	if st == "" {
		st = "(none)"
	}
	for _, c := range conds {
		if c.Type != pgv1.ConditionReady && c.Status != metav1.ConditionTrue {
			return st + "/" + c.Type + ":" + c.Reason
		}
	}
	return st
}

// timeInStates sums, over the tracked objects whose key has prefix and
// that reached Ready, the
// time from their apply to Ready spent in each state (a state lasts until
// the next one is seen); the first interval, apply → first status, is
// "(no status yet)".
func (r *readiness) timeInStates(prefix string) map[string]time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]time.Duration{}
	for k, done := range r.ready {
		if !strings.HasPrefix(k, prefix) {
			continue
		}
		at, ok := r.applied[k]
		if !ok {
			continue
		}
		cur := "(no status yet)"
		for _, s := range r.steps[k] {
			if s.at.After(done) {
				break
			}
			out[cur] += s.at.Sub(at)
			cur, at = s.state, s.at
		}
	}
	return out
}

// roleTrace follows the convergence phase's databases through the role
// (DatabaseRole) and database hand-overs; dbObject and dbName tell it
// their Postgres database and cluster.
func (w workload) roleTrace() *roleTrace {
	t := newRoleTrace("c", func(obj string) string { return w.prefix + strings.Replace(obj, "-", "", 1) })
	t.clusterOf = func(obj string) string { c, _, _ := strings.Cut(obj, "-"); return c }
	return t
}
