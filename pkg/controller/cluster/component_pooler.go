package cluster

import (
	"context"
	"fmt"
	"maps"
	"slices"

	appsv1 "k8s.io/api/apps/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	cnpgac "github.com/setpoint-dev/setpoint/pkg/generated/applyconfiguration/cnpg/v1"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// poolerComponent keeps PgBouncer Poolers <cluster>-pooler-rw and -ro
// while pooling is enabled, and removes them when it is not.
type poolerComponent struct{}

// poolersSeen is the component's part of the snapshot.
type poolersSeen struct {
	poolers map[string]*cnpgv1.Pooler
	// pgBouncers are the Deployments CNPG runs the poolers' PgBouncer
	// in, by Pooler name.
	pgBouncers map[string]*appsv1.Deployment
}

var poolerPart = part[poolersSeen]{"pooler"}

// Watch caches the Poolers, and the Deployments CNPG runs their PgBouncer
// in: a change of availability there is a change of PoolerReady.
func (poolerComponent) Watch(w wiring) (reader, []informers.Registration) {
	poolers := w.inf.Setpoint.CNPG().V1().Poolers()
	deploys := w.inf.Poolers.Apps().V1().Deployments()
	poolerLister, deployLister := poolers.Lister(), deploys.Lister()
	read := func(pc *pgv1.PostgresCluster, o *observation) error {
		seen := poolersSeen{poolers: map[string]*cnpgv1.Pooler{}, pgBouncers: map[string]*appsv1.Deployment{}}
		for _, name := range naming.Poolers(pc.Name) {
			p, err := informers.IgnoreNotFound(poolerLister.Poolers(pc.Namespace).Get(name))
			if err != nil {
				return err
			}
			if p != nil {
				seen.poolers[name] = p
			}
			d, err := informers.IgnoreNotFound(deployLister.Deployments(pc.Namespace).Get(name))
			if err != nil {
				return err
			}
			if d != nil {
				seen.pgBouncers[name] = d
			}
		}
		poolerPart.set(o, seen)
		return nil
	}
	return read, []informers.Registration{
		informers.On(poolers.Informer(), w.owned),
		informers.On(deploys.Informer(), informers.MappedHandler(clusterOfCNPGObject, availabilityChanged, w.enqueue)),
	}
}

func (poolerComponent) Name() string            { return "pooler" }
func (poolerComponent) Condition() string       { return pgv1.ConditionPoolerReady }
func (poolerComponent) Requires() []contractKey { return []contractKey{contractCNPGCluster} }
func (poolerComponent) Provides() []contractKey { return nil }

// poolerTypes are the cluster's Poolers by name, with their types.
func poolerTypes(cluster string) map[string]cnpgv1.PoolerType {
	return map[string]cnpgv1.PoolerType{naming.PoolerRW(cluster): cnpgv1.PoolerTypeRW, naming.PoolerRO(cluster): cnpgv1.PoolerTypeRO}
}

func (poolerComponent) Reconcile(ctx context.Context, p *pass) error {
	client := p.deps.pg.CNPGV1().Poolers(p.cluster.Namespace)
	for name, typ := range poolerTypes(p.cluster.Name) {
		cur := poolerPart.of(p.obs).poolers[name]
		if !p.want.PoolerEnabled {
			if cur != nil && ownership.IsControlledBy(cur, p.cluster.UID) {
				if err := client.Delete(ctx, name, ownership.DeleteOf(cur)); err != nil && !apierrors.IsNotFound(err) {
					return fmt.Errorf("delete pooler %s: %w", name, err)
				}
			}
			continue
		}
		cur, err := claimCached(ctx, p, "Pooler", cur, client, name)
		if err != nil {
			return err
		}
		if cur != nil && poolerMatches(cur, p, typ) {
			continue
		}
		bouncer := cnpgac.PgBouncerSpec().WithPoolMode(string(p.want.PoolMode))
		if params := poolerParams(p); len(params) > 0 {
			bouncer.WithParameters(params)
		}
		spec := cnpgac.PoolerSpec().
			WithCluster(cnpgac.LocalObjectReference().WithName(p.cluster.Name)).
			WithType(typ).WithInstances(p.want.PoolerInstances).WithPgBouncer(bouncer)
		withPoolerTemplate(spec, poolerPodSpec(name, poolerPlacement(p)))
		ac := cnpgac.Pooler(name, p.cluster.Namespace).
			WithLabels(ownership.ManagedLabels(ownership.ClusterLabel, p.cluster.Name)).
			WithOwnerReferences(ownership.OwnerRefApply(p.cluster, gvk)).
			WithSpec(spec)
		if _, err := client.Apply(ctx, ac, applyOpts); err != nil {
			return fmt.Errorf("apply pooler %s: %w", name, err)
		}
	}
	return nil
}

func (poolerComponent) Observe(_ context.Context, p *pass, err error) health {
	if h, ok := conflictHealth(pgv1.ReasonPoolerConflict, err); ok {
		return h
	}
	if err != nil {
		return waiting(pgv1.PhasePending, pgv1.ReasonPoolerApplyFailed, err.Error(), 0)
	}
	if !p.want.PoolerEnabled {
		p.status.ConnectionPoolerStatus = nil
		return ready(pgv1.ReasonNotConfigured, "connection pooling disabled")
	}
	st := &pgv1.ConnectionPoolerStatus{Enabled: true}
	seen := poolerPart.of(p.obs)
	rw, ro := seen.poolers[naming.PoolerRW(p.cluster.Name)], seen.poolers[naming.PoolerRO(p.cluster.Name)]
	if rw != nil {
		st.ReadWrite = rw.Status.Phase
	}
	if ro != nil {
		st.ReadOnly = ro.Status.Phase
	}
	p.status.ConnectionPoolerStatus = st
	for _, pl := range []*cnpgv1.Pooler{rw, ro} {
		if pl == nil || pl.Status.Instances < p.want.PoolerInstances {
			return waiting(pgv1.PhaseProvisioning, pgv1.ReasonPoolerProvisioning, "waiting for PgBouncer instances", eventRecheck)
		}
		if ok, msg := pgBouncerAvailable(pl, seen.pgBouncers[pl.Name], p.want.PoolerInstances); !ok {
			return waiting(pgv1.PhaseProvisioning, pgv1.ReasonPoolerProvisioning, msg, eventRecheck)
		}
	}
	return ready(pgv1.ReasonPoolersReady, fmt.Sprintf("%d PgBouncer instance(s) per pooler", p.want.PoolerInstances))
}

func poolerParams(p *pass) map[string]string {
	if p.want.Settings.ConnectionPooler == nil {
		return nil
	}
	return p.want.Settings.ConnectionPooler.Parameters
}

func poolerMatches(cur *cnpgv1.Pooler, p *pass, typ cnpgv1.PoolerType) bool {
	s := cur.Spec
	return ownership.IsControlledBy(cur, p.cluster.UID) &&
		s.Cluster.Name == p.cluster.Name && s.Type == typ &&
		s.Instances != nil && *s.Instances == p.want.PoolerInstances &&
		s.PgBouncer != nil && s.PgBouncer.PoolMode == string(p.want.PoolMode) &&
		mapsEqualNil(s.PgBouncer.Parameters, poolerParams(p)) &&
		poolerTemplateMatches(s.Template, poolerPodSpec(cur.Name, poolerPlacement(p)))
}

func mapsEqualNil(a, b map[string]string) bool {
	return (len(a) == 0 && len(b) == 0) || maps.Equal(a, b)
}

// Delete removes the Poolers whatever the policy: they hold no data, and
// a later PostgresCluster makes its own.
func (poolerComponent) Delete(ctx context.Context, t *teardown) error {
	poolers := poolerPart.of(t.obs).poolers
	for _, name := range slices.Sorted(maps.Keys(poolers)) {
		if err := deleteChild(ctx, t, "Pooler", poolers[name], t.deps.pg.CNPGV1().Poolers(t.pc.Namespace).Delete); err != nil {
			return err
		}
	}
	return nil
}
