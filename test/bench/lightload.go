package main

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/generated/informers/externalversions"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// The light-load phase: PostgresClusters created one at a time on an
// otherwise idle operator. For each, informers see the moment the CNPG
// Cluster first reports "Cluster in healthy state" and the moment the
// PostgresCluster is Ready at its generation; the difference is the
// operator's own share of a cluster's readiness. Each PostgresCluster's
// phase/reason changes are kept so the report can say where the time goes.

const (
	cnpgHealthy  = "Cluster in healthy state"
	lightPrefix  = "light-"
	lightTimeout = 2 * time.Minute
)

// lightStep is one observed PostgresCluster status: phase and the reasons
// of its Ready and ProvisionerReady conditions.
type lightStep struct {
	at    time.Time
	state string
}

type lightTrack struct {
	prefix  string // the clusters tracked
	mu      sync.Mutex
	created map[string]time.Time
	applied map[string]time.Time // its CNPG Cluster first seen (our apply)
	healthy map[string]time.Time
	// monitor: CNPG applied the cluster's monitor DatabaseRole (the
	// stand-in); the pass that can call the cluster Ready checks Postgres
	// as that role.
	monitor map[string]time.Time
	ready   map[string]time.Time
	steps   map[string][]lightStep
}

func (t *lightTrack) onCNPG(obj any) {
	c, ok := obj.(*cnpgv1.Cluster)
	if !ok || !strings.HasPrefix(c.Name, t.prefix) {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	first(t.applied, c.Name, now)
	if c.Status.Phase == cnpgHealthy {
		first(t.healthy, c.Name, now)
	}
}

func (t *lightTrack) onRole(obj any) {
	r, ok := obj.(*cnpgv1.DatabaseRole)
	if !ok || r.Spec.Name != naming.MonitorRole || r.Status.Applied == nil || !*r.Status.Applied || r.Status.ObservedGeneration != r.Generation {
		return
	}
	cluster := r.Labels[ownership.ClusterLabel]
	if !strings.HasPrefix(cluster, t.prefix) {
		return
	}
	now := time.Now()
	t.mu.Lock()
	defer t.mu.Unlock()
	first(t.monitor, cluster, now)
}

func (t *lightTrack) onCluster(obj any) {
	c, ok := obj.(*pgv1.PostgresCluster)
	if !ok || !strings.HasPrefix(c.Name, t.prefix) {
		return
	}
	now := time.Now()
	state := string(c.Status.Phase) + "/" + condReason(c.Status.Conditions, pgv1.ConditionProvisionerReady)
	t.mu.Lock()
	defer t.mu.Unlock()
	if s := t.steps[c.Name]; len(s) == 0 || s[len(s)-1].state != state {
		t.steps[c.Name] = append(s, lightStep{now, state})
	}
	if c.Status.Phase == pgv1.PhaseReady && c.Status.ObservedGeneration == c.Generation {
		if _, seen := t.ready[c.Name]; !seen {
			t.ready[c.Name] = now
		}
	}
}

func condReason(conds []metav1.Condition, typ string) string {
	if c := apimeta.FindStatusCondition(conds, typ); c != nil {
		return c.Reason
	}
	return "-"
}

func (t *lightTrack) done(name string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	_, h := t.healthy[name]
	_, r := t.ready[name]
	return h && r
}

// timeline describes one cluster's states relative to the CNPG Cluster's
// healthy moment: "Provisioning/ClusterCreating@-1.20s …".
func (t *lightTrack) timeline(name string) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	h := t.healthy[name]
	var b strings.Builder
	fmt.Fprintf(&b, "%s: created@%+.2fs CNPG-applied@%+.2fs healthy@0", name, t.created[name].Sub(h).Seconds(), t.applied[name].Sub(h).Seconds())
	if m, ok := t.monitor[name]; ok {
		fmt.Fprintf(&b, " monitor-role-applied@%+.2fs", m.Sub(h).Seconds())
	}
	for _, s := range t.steps[name] {
		fmt.Fprintf(&b, " %s@%+.2fs", s.state, s.at.Sub(h).Seconds())
	}
	return b.String()
}

type lightResult struct {
	healthyToReady []time.Duration // sorted
	createToHealth []time.Duration // sorted
	timelines      []string
	spans          clusterSpans
	before, after  scrape
}

// runLight creates n PostgresClusters one after the other in w's
// namespace, each once the previous is Ready.
func (b *bench) runLight(ctx context.Context, op *operatorProc, w workload, n int) (*lightResult, error) {
	t := newLightTrack(lightPrefix)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if err := t.watch(wctx, b, w.ns); err != nil {
		return nil, err
	}
	before, err := op.scrape()
	if err != nil {
		return nil, err
	}
	res := &lightResult{before: before}
	if err := b.runLightLoop(ctx, op, t, w, res, n); err != nil {
		return nil, err
	}
	return res, nil
}

func newLightTrack(prefix string) *lightTrack {
	return &lightTrack{prefix: prefix, created: map[string]time.Time{}, applied: map[string]time.Time{}, healthy: map[string]time.Time{}, monitor: map[string]time.Time{},
		ready: map[string]time.Time{}, steps: map[string][]lightStep{}}
}

// watch starts informers on CNPG Clusters and PostgresClusters in ns
// feeding t; stop with ctx.
func (t *lightTrack) watch(ctx context.Context, b *bench, ns string) error {
	f := externalversions.NewSharedInformerFactoryWithOptions(b.pg, 0, externalversions.WithNamespace(ns))
	handlers := []struct {
		inf cache.SharedIndexInformer
		fn  func(any)
	}{
		{f.CNPG().V1().Clusters().Informer(), t.onCNPG},
		{f.CNPG().V1().DatabaseRoles().Informer(), t.onRole},
		{f.Postgres().V1alpha1().PostgresClusters().Informer(), t.onCluster},
	}
	for _, h := range handlers {
		if _, err := h.inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
			AddFunc: h.fn, UpdateFunc: func(_, o any) { h.fn(o) }}); err != nil {
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

func (b *bench) runLightLoop(ctx context.Context, op *operatorProc, t *lightTrack, w workload, res *lightResult, n int) error {
	for i := range n {
		name := lightName(i)
		if err := b.createLight(ctx, op, t, w, name); err != nil {
			return err
		}
		t.mu.Lock()
		res.healthyToReady = append(res.healthyToReady, t.ready[name].Sub(t.healthy[name]))
		res.createToHealth = append(res.createToHealth, t.healthy[name].Sub(t.created[name]))
		t.mu.Unlock()
		line := t.timeline(name)
		res.timelines = append(res.timelines, line)
		logf("  %s", line)
	}
	res.spans = t.spans()
	sort.Slice(res.healthyToReady, func(i, j int) bool { return res.healthyToReady[i] < res.healthyToReady[j] })
	sort.Slice(res.createToHealth, func(i, j int) bool { return res.createToHealth[i] < res.createToHealth[j] })
	var err error
	res.after, err = settle(ctx, op)
	return err
}

func (b *bench) createLight(ctx context.Context, op *operatorProc, t *lightTrack, w workload, name string) error {
	obj := &pgv1.PostgresCluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.ns},
		Spec:       pgv1.PostgresClusterSpec{Class: w.class, ClusterDeletionPolicy: pgv1.DeletionPolicyDelete},
	}
	t.mu.Lock()
	t.created[name] = time.Now()
	t.mu.Unlock()
	if _, err := b.pg.PostgresV1alpha1().PostgresClusters(w.ns).Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		return fmt.Errorf("create %s: %w", name, err)
	}
	deadline := time.Now().Add(lightTimeout)
	for !t.done(name) {
		if time.Now().After(deadline) {
			return fmt.Errorf("light load: %s not healthy and Ready within %v; %s", name, lightTimeout, t.timeline(name))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-op.done:
			return fmt.Errorf("operator exited during the light-load phase; log %s:\n%s", op.logPath, tail(op.logPath, 30))
		case <-time.After(20 * time.Millisecond):
		}
	}
	return nil
}

// lightFigures adds the light-load phase's figures to fig.
func lightFigures(fig map[string]float64, r *lightResult) {
	n := float64(len(r.healthyToReady))
	api := diffCounts(r.before.apiCounts(), r.after.apiCounts())
	fig["light_clusters"] = n
	fig["light_healthy_to_ready_p50_s"] = pct(r.healthyToReady, 0.50)
	fig["light_healthy_to_ready_p99_s"] = pct(r.healthyToReady, 0.99)
	fig["light_healthy_to_ready_max_s"] = pct(r.healthyToReady, 1)
	fig["light_create_to_healthy_p50_s"] = pct(r.createToHealth, 0.50)
	spanFigures(fig, "light_", r.spans)
	fig["light_status_writes_per_cluster"] = statusWrites(api, "postgresclusters") / n
	fig["light_api_writes_per_cluster"] = sumWrites(api) / n
}

// lightSelector selects (op "in") or excludes (op "notin") the CNPG
// objects of the light-load clusters by the operator's cluster label.
func lightSelector(op string, n int) string {
	names := make([]string, n)
	for i := range n {
		names[i] = lightName(i)
	}
	return fmt.Sprintf("%s %s (%s)", ownership.ClusterLabel, op, strings.Join(names, ","))
}

func lightName(i int) string { return fmt.Sprintf("%s%02d", lightPrefix, i) }

// light runs the light-load phase: with servers of their own, in a
// namespace of its own with a fresh operator pointed at the second
// stand-in's host map; otherwise on the convergence phase's operator.
func (b *bench) light(ctx context.Context, rep int, op *operatorProc, w workload) (*lightResult, error) {
	n := b.f.lightClusters
	if b.lightHostMap == "" {
		return b.runLight(ctx, op, w, n)
	}
	lw := workload{ns: fmt.Sprintf("light-r%d", rep), class: w.class}
	if err := ensureNamespace(ctx, b.kube, lw.ns); err != nil {
		return nil, err
	}
	lop, err := b.startWatching(ctx, fmt.Sprintf("operator-light-r%d", rep), lw.ns, b.lightHostMap)
	if err != nil {
		return nil, err
	}
	defer lop.kill()
	return b.runLight(ctx, lop, lw, n)
}
