package cluster

import (
	"context"
	"fmt"
	"strconv"

	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/naming"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// configMapComponent publishes connection information in
// <cluster>-connection. It waits for CNPG's CA, which clients need.
type configMapComponent struct{}

func (configMapComponent) Name() string      { return "configMap" }
func (configMapComponent) Condition() string { return pgv1.ConditionConfigMapReady }
func (configMapComponent) Requires() []contractKey {
	return []contractKey{contractCNPGCluster, contractSecret}
}
func (configMapComponent) Provides() []contractKey { return nil }

// connectionData is the connection-info ConfigMap's content. The
// read-write host is there twice: as rw-host, its first name here, and as
// host, its name in every database's ConfigMap, so that a client reads
// either ConfigMap the same way.
func connectionData(p *pass) map[string]string {
	ns, name := p.cluster.Namespace, p.cluster.Name
	rw := naming.Host(ns, naming.RWService(name))
	d := map[string]string{
		naming.KeyHost:        rw,
		naming.KeyRWHost:      rw,
		naming.KeyROHost:      naming.Host(ns, naming.ROService(name)),
		naming.KeyRHost:       naming.Host(ns, naming.RService(name)),
		naming.KeyPort:        strconv.Itoa(postgres.Port),
		naming.KeyCASecret:    naming.ServerCASecret(name),
		naming.KeyCASecretKey: naming.CACertKey,
		naming.KeySSLMode:     naming.SSLMode,
	}
	if s := p.contracts.Secret; s != nil {
		// Only while superuser access is on: otherwise nobody can log in
		// as postgres over the network, and there is no Secret to name.
		d[naming.KeySuperuserName], d[naming.KeySuperuserSecret] = "postgres", s.Name
	}
	if p.want.PoolerEnabled {
		d[naming.KeyPoolerRWHost] = naming.Host(ns, naming.PoolerRW(name))
		d[naming.KeyPoolerROHost] = naming.Host(ns, naming.PoolerRO(name))
	}
	return d
}

func (configMapComponent) Reconcile(ctx context.Context, p *pass) error {
	if len(p.obs.ca) == 0 {
		return nil // Observe reports the wait
	}
	data := connectionData(p)
	client := p.deps.kube.CoreV1().ConfigMaps(p.cluster.Namespace)
	// The ConfigMap cache holds only labelled objects: claim asks the API
	// server before we write over a ConfigMap we cannot see.
	cur, err := claim(ctx, p, "ConfigMap", p.obs.configMap, cachedViews{client}, p.name(configMapSuffix))
	if err != nil {
		return err
	}
	marks := connectionMarks(p)
	labels := ownership.ManagedLabels(ownership.ClusterLabel, p.cluster.Name)
	if cur != nil && cur.DataEqual(data) && marksMatch(cur, marks) && ownership.HasLabels(cur.Labels, labels) &&
		ownership.IsControlledBy(cur, p.cluster.UID) {
		return nil
	}
	ac := corev1ac.ConfigMap(p.name(configMapSuffix), p.cluster.Namespace).
		WithLabels(labels).
		WithAnnotations(marks).
		WithOwnerReferences(ownership.OwnerRefApply(p.cluster, gvk)).
		WithData(data)
	if _, err := client.Apply(ctx, ac, applyOpts); err != nil {
		return fmt.Errorf("apply connection ConfigMap: %w", err)
	}
	return nil
}

func (configMapComponent) Observe(_ context.Context, p *pass, err error) health {
	if h, ok := conflictHealth(pgv1.ReasonConfigMapConflict, err); ok {
		return h
	}
	if err != nil {
		return waiting(pgv1.PhasePending, pgv1.ReasonConfigMapApplyFailed, err.Error(), 0)
	}
	if len(p.obs.ca) == 0 {
		return waiting(pgv1.PhaseProvisioning, pgv1.ReasonWaitingForCA, fmt.Sprintf("waiting for CNPG's CA Secret %q", naming.CASecret(p.cluster.Name)), provisionRecheck)
	}
	r := p.resources()
	r.ConfigMapRef = &pgv1.LocalObjectReference{Name: p.name(configMapSuffix)}
	r.SuperUserSecretRef = nil
	if s := p.contracts.Secret; s != nil {
		r.SuperUserSecretRef = &pgv1.LocalObjectReference{Name: s.Name}
	}
	return ready(pgv1.ReasonConfigMapApplied, fmt.Sprintf("connection info in ConfigMap %q", p.name(configMapSuffix)))
}
