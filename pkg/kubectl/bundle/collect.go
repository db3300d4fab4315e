package bundle

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"
)

// Collector reads what a bundle holds. Custom resources through the
// dynamic client, so that each object is complete as the API server has
// it (setpoint's typed CNPG subset would drop what setpoint does not
// read); core kinds through the typed client.
type Collector struct {
	Kube      kubernetes.Interface
	Dynamic   dynamic.Interface
	Namespace string
	// OperatorNamespace and OperatorSelector find the operator's Pods
	// for its logs.
	OperatorNamespace string
	OperatorSelector  string
	// TailLines is how many lines of each container's log (0: all).
	TailLines int64

	// readLog reads a container's log; nil: through Kube. The fake
	// clientset answers every log with the same words, and the tests
	// need log lines of their own.
	readLog func(ctx context.Context, namespace, pod string, opts *corev1.PodLogOptions) ([]byte, error)
}

// found is what the custom resources of a bundle turned up: names of the
// objects (for Events and Secrets) and their UIDs (for owner references).
type found struct {
	names map[string]bool
	uids  map[types.UID]bool
}

// Collect reads the bundle of PostgresCluster cluster. A kind the API
// server does not serve (a CRD not installed) or may not show is noted in
// the bundle, not an error: a support bundle is most wanted when
// something is missing.
func (c Collector) Collect(ctx context.Context, cluster string) (*Bundle, error) {
	b := newBundle()
	if _, err := c.Dynamic.Resource(kinds[0].gvr).Namespace(c.Namespace).Get(ctx, cluster, metav1.GetOptions{}); err != nil {
		return nil, fmt.Errorf("get PostgresCluster %s/%s: %w", c.Namespace, cluster, err)
	}
	f := found{names: map[string]bool{cluster: true}, uids: map[types.UID]bool{}}
	for _, k := range kinds {
		objs, err := c.objectsOf(ctx, k, cluster)
		if err != nil {
			b.note(k.dir, err)
			continue
		}
		for _, o := range objs {
			f.names[o.GetName()] = true
			f.uids[o.GetUID()] = true
			if err := b.addObject(k.dir+"/"+o.GetName()+".yaml", o.Object); err != nil {
				return nil, err
			}
		}
	}
	c.secrets(ctx, b, cluster, f)
	pods := c.pods(ctx, b, cluster, f)
	c.events(ctx, b, f)
	c.instanceLogs(ctx, b, pods)
	c.operatorLogs(ctx, b)
	return b, nil
}

// objectsOf lists the objects of k that belong to the cluster, by name.
func (c Collector) objectsOf(ctx context.Context, k kind, cluster string) ([]unstructured.Unstructured, error) {
	client := c.Dynamic.Resource(k.gvr).Namespace(c.Namespace)
	if !k.byClusterRef {
		o, err := client.Get(ctx, k.name(cluster), metav1.GetOptions{})
		if apierrors.IsNotFound(err) {
			return nil, nil
		}
		if err != nil {
			return nil, fmt.Errorf("get %s %s: %w", k.gvr.Resource, k.name(cluster), err)
		}
		return []unstructured.Unstructured{*o}, nil
	}
	list, err := client.List(ctx, metav1.ListOptions{})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", k.gvr.Resource, err)
	}
	var out []unstructured.Unstructured
	for _, o := range list.Items {
		if clusterOf(o) == cluster {
			out = append(out, o)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].GetName() < out[j].GetName() })
	return out, nil
}

// clusterOf is the cluster an object names: spec.cluster.name on CNPG's
// kinds, spec.clusterRef.name on a PostgresDatabase.
func clusterOf(o unstructured.Unstructured) string {
	for _, path := range [][]string{{"spec", "cluster", "name"}, {"spec", "clusterRef", "name"}} {
		if s, ok, _ := unstructured.NestedString(o.Object, path...); ok {
			return s
		}
	}
	return ""
}

// addObject writes obj as YAML without managedFields, which say who wrote
// what, at length, and nothing a support case needs.
func (b *Bundle) addObject(name string, obj map[string]any) error {
	o := unstructured.Unstructured{Object: obj}
	o.SetManagedFields(nil)
	y, err := yaml.Marshal(o.Object)
	if err != nil {
		return fmt.Errorf("encode %s: %w", name, err)
	}
	b.Add(name, y)
	return nil
}
