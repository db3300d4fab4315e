package database

import (
	"context"
	"fmt"
	"maps"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller"
	"github.com/setpoint-dev/setpoint/pkg/postgres"
)

// configMapsStep publishes, per database, what an application needs to
// connect: endpoints, port, database and user names, and where the
// credentials and the CA are.
func configMapsStep(ctx context.Context, p *pass) health {
	var hs []health
	for _, d := range p.db.Spec.Databases {
		h := p.ensureConfigMap(ctx, d)
		if h.Phase != pgv1.PhaseReady {
			p.problem(d.Name, h.Message)
		}
		hs = append(hs, h)
	}
	if h := worst(hs); h.Phase != pgv1.PhaseReady {
		return h
	}
	return ready("ConfigMapsReady", fmt.Sprintf("connection info of %d database(s) published", len(p.db.Spec.Databases)))
}

func (p *pass) ensureConfigMap(ctx context.Context, d pgv1.DatabaseSpec) health {
	n := namesOf(p.db.Name, d.Name)
	e := p.entry(d.Name)
	data := connectionData(p.db.Namespace, p.obs.cluster, n, e)
	policy := string(policyOf(d))
	client := p.c.kube.CoreV1().ConfigMaps(p.db.Namespace)
	// Our cache holds only labelled ConfigMaps: ask the API server before
	// writing over one we cannot see.
	cur, err := controller.Live(ctx, p.obs.configMaps[n.ConfigMap], client.Get, n.ConfigMap)
	if err != nil {
		return apiError("ConfigMapLookupFailed", err)
	}
	if conflict := p.owner().Check("ConfigMap", cur); conflict != nil {
		return conflict.Health("ConfigMapConflict")
	}
	if cur == nil || !configMapCurrent(cur, p.db, data, policy) {
		// Adopting a retained ConfigMap: this apply (same field manager as
		// the release) drops the retained marks and adds our reference.
		ac := configMapApply(p.db, n.ConfigMap, policy, data).WithOwnerReferences(controller.OwnerRefApply(p.db, gvk))
		if _, err := client.Apply(ctx, ac, applyOpts); err != nil {
			return apiError("ConfigMapApplyFailed", fmt.Errorf("apply ConfigMap %s: %w", n.ConfigMap, err))
		}
	}
	e.ConfigMapRef = &pgv1.LocalObjectReference{Name: n.ConfigMap}
	return ready("", "")
}

// configMapApply is the ConfigMap as we own it, without owner references
// (a release applies it without them, which removes ours).
func configMapApply(db *pgv1.PostgresDatabase, name, policy string, data map[string]string) *corev1ac.ConfigMapApplyConfiguration {
	return corev1ac.ConfigMap(name, db.Namespace).
		WithLabels(controller.ManagedLabels(controller.DatabaseLabel, db.Name)).
		WithAnnotations(map[string]string{policyAnnotation: policy}).
		WithData(data)
}

var applyOpts = metav1.ApplyOptions{FieldManager: fieldManager, Force: true}

// configMapCurrent: ours, not marked retained, with the data and policy
// we want — nothing to apply.
func configMapCurrent(cm *corev1.ConfigMap, db *pgv1.PostgresDatabase, data map[string]string, policy string) bool {
	_, retained := cm.Labels[controller.RetainedLabel]
	return controller.IsControlledBy(cm, db.UID) && !retained &&
		cm.Annotations[policyAnnotation] == policy && maps.Equal(cm.Data, data)
}

// connectionData is the content of a database's connection ConfigMap.
func connectionData(namespace string, pc *pgv1.PostgresCluster, n names, e *pgv1.DatabaseStatus) map[string]string {
	svc := func(suffix string) string { return fmt.Sprintf("%s%s.%s.svc", pc.Name, suffix, namespace) }
	d := map[string]string{
		"host":          postgres.Host(namespace, pc.Name),
		"ro-host":       svc("-ro"),
		"port":          strconv.Itoa(postgres.Port),
		"database":      n.DB,
		"admin-user":    n.AdminRole,
		"rw-user":       n.RWRole,
		"ca-secret":     pc.Name + caSuffix,
		"ca-secret-key": "ca.crt",
		"sslmode":       "verify-full",
	}
	if e.AdminSecretRef != nil {
		d["admin-secret"] = e.AdminSecretRef.Name
	}
	if e.RWSecretRef != nil {
		d["rw-secret"] = e.RWSecretRef.Name
	}
	if e.ROSecretRef != nil { // set only while readOnlyRole is
		d["ro-user"] = n.RORole
		d["ro-secret"] = e.ROSecretRef.Name
	}
	if ps := pc.Status.ConnectionPoolerStatus; ps != nil && ps.Enabled {
		d["pooler-host"] = svc("-pooler-rw")
		d["pooler-ro-host"] = svc("-pooler-ro")
	}
	return d
}

// policyOf is a database's deletionPolicy; the CRD defaults it to Delete.
func policyOf(d pgv1.DatabaseSpec) pgv1.DeletionPolicy {
	if d.DeletionPolicy == "" {
		return pgv1.DeletionPolicyDelete
	}
	return d.DeletionPolicy
}
