package cluster

import (
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// A cluster whose instance cannot be scheduled (required anti-affinity
// on too few nodes, a node selector no node matches, a taint without a
// toleration, no volume) waits in CloudNativePG's "Creating a new replica"
// or "Setting up primary" forever, and CNPG's status does not say why.
// The scheduler says it on the Pod: PodScheduled False, reason
// Unschedulable, with a message naming the rule no node met. The
// provisioner reads those Pods from a cache trimmed to exactly that
// (informers.Informers.Pods) and puts the scheduler's words into
// ProvisionerReady while CNPG waits.

// unschedulablePod is a Pod of the cluster the scheduler cannot place.
type unschedulablePod struct {
	name, message string
}

// schedulingPart is the provisioner's part of the snapshot: the cluster's
// Pods that cannot be scheduled, by name.
var schedulingPart = part[[]unschedulablePod]{"scheduling"}

// Watch caches the Pods CloudNativePG makes for clusters, trimmed to their
// scheduling, and wakes a cluster when one of its Pods becomes
// unschedulable or stops being so.
func (provisionerComponent) Watch(w wiring) (reader, []informers.Registration) {
	pods := w.inf.Pods.Core().V1().Pods()
	lister := pods.Lister()
	read := func(pc *pgv1.PostgresCluster, o *observation) error {
		sel := labels.SelectorFromSet(labels.Set{cnpgClusterLabel: pc.Name})
		list, err := lister.Pods(pc.Namespace).List(sel)
		if err != nil {
			return fmt.Errorf("list the Pods of CNPG Cluster %s: %w", pc.Name, err)
		}
		var out []unschedulablePod
		for _, p := range list {
			if msg, ok := unschedulable(p); ok {
				out = append(out, unschedulablePod{name: p.Name, message: msg})
			}
		}
		slices.SortFunc(out, func(a, b unschedulablePod) int { return strings.Compare(a.name, b.name) })
		schedulingPart.set(o, out)
		return nil
	}
	return read, []informers.Registration{
		informers.On(pods.Informer(), informers.MappedHandler(clusterOfCNPGObject, schedulingChanged, w.enqueue)),
	}
}

// unschedulable says whether the scheduler gave up on p for now, and its
// words. A Pod being deleted does not count.
func unschedulable(p *corev1.Pod) (string, bool) {
	if p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodPending {
		return "", false
	}
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Status == corev1.ConditionFalse && c.Reason == corev1.PodReasonUnschedulable {
			return c.Message, true
		}
	}
	return "", false
}

// clusterOfCNPGObject routes an object CloudNativePG made for a cluster
// (a Pod, a Pooler's Deployment) to the PostgresCluster of CNPG's cluster
// label: the CNPG Cluster has the PostgresCluster's name. The pass checks
// that the object is really its own.
func clusterOfCNPGObject(obj any) []workqueue.Key {
	o, ok := obj.(metav1.Object)
	if !ok || o.GetLabels()[cnpgClusterLabel] == "" {
		return nil
	}
	return []workqueue.Key{{Namespace: o.GetNamespace(), Name: o.GetLabels()[cnpgClusterLabel]}}
}

// schedulingChanged: only a Pod turning unschedulable or schedulable (or
// the scheduler's reason changing) concerns the cluster; a Pod's every
// other update does not wake it.
func schedulingChanged(oldObj, newObj any) bool {
	o, ok1 := oldObj.(*corev1.Pod)
	n, ok2 := newObj.(*corev1.Pod)
	if !ok1 || !ok2 {
		return true
	}
	om, ou := unschedulable(o)
	nm, nu := unschedulable(n)
	return ou != nu || om != nm
}

// unschedulableHealth is ProvisionerReady while CNPG waits and some of
// the cluster's Pods cannot be scheduled: the phase CNPG's gives, with the
// scheduler's words for each Pod.
func unschedulableHealth(phase pgv1.Phase, cnpgMessage string, pods []unschedulablePod) health {
	parts := make([]string, 0, len(pods))
	for _, p := range pods {
		parts = append(parts, fmt.Sprintf("Pod %s cannot be scheduled: %s", p.name, p.message))
	}
	return waiting(phase, pgv1.ReasonPodsUnschedulable, strings.Join(parts, "; ")+" ("+cnpgMessage+")", eventRecheck)
}
