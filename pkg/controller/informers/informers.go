package informers

import (
	"context"
	"fmt"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubeinformers "k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"

	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	pginformers "github.com/setpoint-dev/setpoint/pkg/generated/informers/externalversions"
)

// Informers are the shared informer factories of the operator: one for
// our API and the CNPG kinds, one for core kinds restricted to the Secrets
// and ConfigMaps we manage, and one for the Deployments CNPG runs PgBouncer
// in.
type Informers struct {
	Setpoint pginformers.SharedInformerFactory
	Kube     kubeinformers.SharedInformerFactory
	// Poolers caches only Deployments CNPG labels as a Pooler's
	// (PoolerDeploymentSelector): whether PgBouncer is available is known
	// only there, CNPG's Pooler status counts Pods created, not ready.
	Poolers kubeinformers.SharedInformerFactory
	// Pods caches only the Pods CNPG labels with a cluster (instances,
	// their Jobs, PgBouncer), trimmed to whether they can be scheduled
	// (trimPod): the one place a Pod that never starts says why.
	Pods kubeinformers.SharedInformerFactory
	// InstanceRoles caches only the RBAC Roles CNPG labels with a cluster
	// (InstanceRoleSelector) — its instance Role, one per cluster —
	// trimmed to the Secrets they let the instance read (trimRole): the
	// moment a new DatabaseRole's password Secret appears there, the role
	// CNPG refused for it can be retried (ADR 0020).
	InstanceRoles kubeinformers.SharedInformerFactory
	// missing are the optional APIs not served (OptionalAPI), by CRD.
	missing map[string]bool
	// in is the interner of the factories' transforms.
	in *interner
}

// AsCached returns obj as the Setpoint and Kube caches hold it (trimmed,
// interned, a ConfigMap's data as its digest): for tests that seed a
// cache by hand; the controllers read a ConfigMap so seeded through
// ConfigMapLister. obj itself is changed.
func (i *Informers) AsCached(obj any) any {
	out, _ := i.in.trimPod(obj) // trimForCache for any other kind
	return out
}

// NewInformers builds the factories. namespace "" watches all namespaces.
// Cached objects are trimmed (trimForCache) of what we never read.
func NewInformers(kube kubernetes.Interface, pg versioned.Interface, namespace string, resync time.Duration) *Informers {
	selector := ownership.ManagedSelector().String()
	// One interner for all the factories: the strings they repeat are
	// largely the same (namespaces, labels, owners).
	in := &interner{}
	return &Informers{
		Setpoint: pginformers.NewSharedInformerFactoryWithOptions(pg, resync,
			pginformers.WithNamespace(namespace),
			pginformers.WithTransform(in.trimForCache)),
		Kube: kubeinformers.NewSharedInformerFactoryWithOptions(kube, resync,
			kubeinformers.WithNamespace(namespace),
			kubeinformers.WithTransform(in.trimForCache),
			kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = selector })),
		Poolers: kubeinformers.NewSharedInformerFactoryWithOptions(kube, resync,
			kubeinformers.WithNamespace(namespace),
			kubeinformers.WithTransform(in.trimDeployment),
			kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = PoolerDeploymentSelector })),
		Pods: kubeinformers.NewSharedInformerFactoryWithOptions(kube, resync,
			kubeinformers.WithNamespace(namespace),
			kubeinformers.WithTransform(in.trimPod),
			kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = CNPGPodSelector })),
		InstanceRoles: kubeinformers.NewSharedInformerFactoryWithOptions(kube, resync,
			kubeinformers.WithNamespace(namespace),
			kubeinformers.WithTransform(in.trimRole),
			kubeinformers.WithTweakListOptions(func(o *metav1.ListOptions) { o.LabelSelector = InstanceRoleSelector })),
		in: in,
	}
}

// PoolerDeploymentSelector selects the Deployments CNPG creates for
// Poolers (cnpg.io/podRole=pooler, set by CNPG on each).
const PoolerDeploymentSelector = "cnpg.io/podRole=pooler"

// CNPGPodSelector selects the Pods CNPG makes for a cluster: its
// instances, their Jobs and the PgBouncer Pods all carry cnpg.io/cluster.
const CNPGPodSelector = "cnpg.io/cluster"

// trimPod keeps of a Pod what says whether it can be scheduled: its
// name, namespace, labels, phase and PodScheduled condition. A Pod's spec
// and the rest of its status are most of its size, and setpoint reads
// none of them from the cache.
func (in *interner) trimPod(obj any) (any, error) {
	p, ok := obj.(*corev1.Pod)
	if !ok {
		return in.trimForCache(obj)
	}
	kept := &corev1.Pod{
		ObjectMeta: keptMeta(p.ObjectMeta),
		Status:     corev1.PodStatus{Phase: p.Status.Phase},
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled {
			kept.Status.Conditions = []corev1.PodCondition{{Type: c.Type, Status: c.Status, Reason: c.Reason, Message: c.Message}}
		}
	}
	return in.trimForCache(kept)
}

// keptMeta is what a trimmed object keeps of its metadata: who it is, its
// labels, its version and whether it is being deleted.
func keptMeta(m metav1.ObjectMeta) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: m.Name, Namespace: m.Namespace, UID: m.UID, Labels: m.Labels,
		ResourceVersion: m.ResourceVersion, DeletionTimestamp: m.DeletionTimestamp}
}

// trimDeployment is trimForCache, and drops a Deployment's Pod template:
// setpoint reads only its owner, generation and status. The API type
// stays, as nothing reads the template (doc.go).
func (in *interner) trimDeployment(obj any) (any, error) {
	if d, ok := obj.(*appsv1.Deployment); ok {
		d.Spec.Template = corev1.PodTemplateSpec{}
	}
	return in.trimForCache(obj)
}

// Start starts every informer requested so far and waits for their caches.
func (i *Informers) Start(ctx context.Context) error {
	i.Setpoint.StartWithContext(ctx)
	i.Kube.StartWithContext(ctx)
	i.Poolers.StartWithContext(ctx)
	i.Pods.StartWithContext(ctx)
	i.InstanceRoles.StartWithContext(ctx)
	if err := i.Setpoint.WaitForCacheSyncWithContext(ctx).AsError(); err != nil {
		return fmt.Errorf("sync setpoint and CNPG caches: %w", err)
	}
	if err := i.Kube.WaitForCacheSyncWithContext(ctx).AsError(); err != nil {
		return fmt.Errorf("sync Secret and ConfigMap caches: %w", err)
	}
	if err := i.Poolers.WaitForCacheSyncWithContext(ctx).AsError(); err != nil {
		return fmt.Errorf("sync the PgBouncer Deployment cache: %w", err)
	}
	if err := i.Pods.WaitForCacheSyncWithContext(ctx).AsError(); err != nil {
		return fmt.Errorf("sync the CNPG Pod cache: %w", err)
	}
	if err := i.InstanceRoles.WaitForCacheSyncWithContext(ctx).AsError(); err != nil {
		return fmt.Errorf("sync the CNPG instance Role cache: %w", err)
	}
	return nil
}

// Shutdown stops the informers and waits for their goroutines.
func (i *Informers) Shutdown() {
	i.Setpoint.Shutdown()
	i.Kube.Shutdown()
	i.Poolers.Shutdown()
	i.Pods.Shutdown()
	i.InstanceRoles.Shutdown()
}

// lastApplied is kubectl's copy of the whole object as last applied: as
// big as the object, and never read by setpoint.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// trimForCache drops from a cached object what setpoint never reads —
// managedFields and kubectl's last-applied copy — which together can
// triple an object's size in memory, and makes the strings many objects
// repeat share one copy (the interner of the informers). (Fields of CNPG's kinds that
// setpoint does not declare are dropped already when the JSON is decoded.)
func (in *interner) trimForCache(obj any) (any, error) {
	if acc, ok := obj.(metav1.ObjectMetaAccessor); ok {
		m := acc.GetObjectMeta()
		m.SetManagedFields(nil)
		if a := m.GetAnnotations(); a[lastApplied] != "" {
			delete(a, lastApplied)
			m.SetAnnotations(a)
		}
	}
	in.internObject(obj)
	return obj, nil
}

var _ cache.TransformFunc = (&interner{}).trimForCache
