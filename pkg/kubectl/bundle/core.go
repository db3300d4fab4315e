package bundle

import (
	"context"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/yaml"
)

// redactedSecret is all a bundle says of a Secret.
type redactedSecret struct {
	Name            string                  `json:"name"`
	Type            corev1.SecretType       `json:"type"`
	Keys            []string                `json:"keys"`
	Labels          map[string]string       `json:"labels,omitempty"`
	OwnerReferences []metav1.OwnerReference `json:"ownerReferences,omitempty"`
}

// cnpgClusterLabel is the label CNPG puts on what it makes for a Cluster.
const cnpgClusterLabel = "cnpg.io/cluster"

// secrets lists the cluster's Secrets by name and keys, and hands the
// values of every Secret of the namespace to the redactor: a password may
// turn up anywhere (an Event, a log line, a user's ConfigMap), and a
// Secret the bundle does not list is no less secret.
func (c Collector) secrets(ctx context.Context, b *Bundle, cluster string, f found) {
	list, err := c.Kube.CoreV1().Secrets(c.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.note("secrets.yaml", fmt.Errorf("list Secrets: %w (values could not be redacted by value; connection-string passwords still are)", err))
		return
	}
	var out []redactedSecret
	for _, s := range list.Items {
		b.redact.secret(s.Data)
		if !f.related(&s.ObjectMeta, cluster) {
			continue
		}
		r := redactedSecret{Name: s.Name, Type: s.Type, Labels: s.Labels, OwnerReferences: s.OwnerReferences, Keys: []string{}}
		for k := range s.Data {
			r.Keys = append(r.Keys, k)
		}
		sort.Strings(r.Keys)
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	c.addYAML(b, "secrets.yaml", out)
}

// related: owned by an object of the bundle, labelled for the cluster by
// CNPG or setpoint, or named like one of the bundle's objects' children.
func (f found) related(m *metav1.ObjectMeta, cluster string) bool {
	for _, ref := range m.OwnerReferences {
		if f.uids[ref.UID] {
			return true
		}
	}
	return m.Labels[cnpgClusterLabel] == cluster || m.Labels[setpointClusterLabel] == cluster
}

// setpointClusterLabel is the label setpoint puts on what it makes for a
// PostgresCluster (ownership.ClusterLabel, which the plugin does not
// import: the controller's package is the operator's).
const setpointClusterLabel = "postgres.setpoint.dev/cluster"

// podState is what a bundle says of a Pod: no spec, whose environment
// may hold what no bundle should.
type podState struct {
	Name              string                   `json:"name"`
	Labels            map[string]string        `json:"labels,omitempty"`
	Node              string                   `json:"node,omitempty"`
	Phase             corev1.PodPhase          `json:"phase"`
	Reason            string                   `json:"reason,omitempty"`
	Message           string                   `json:"message,omitempty"`
	StartTime         *metav1.Time             `json:"startTime,omitempty"`
	Conditions        []corev1.PodCondition    `json:"conditions,omitempty"`
	InitContainers    []corev1.ContainerStatus `json:"initContainerStatuses,omitempty"`
	Containers        []corev1.ContainerStatus `json:"containerStatuses,omitempty"`
	DeletionTimestamp *metav1.Time             `json:"deletionTimestamp,omitempty"`
}

// pods are the cluster's instances and its poolers' PgBouncer Pods.
func (c Collector) pods(ctx context.Context, b *Bundle, cluster string, f found) []corev1.Pod {
	list, err := c.Kube.CoreV1().Pods(c.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.note("pods.yaml", fmt.Errorf("list Pods: %w", err))
		return nil
	}
	var pods []corev1.Pod
	var states []podState
	for _, p := range list.Items {
		if p.Labels[cnpgClusterLabel] != cluster && !f.names[p.Labels[cnpgPoolerLabel]] {
			continue
		}
		pods = append(pods, p)
		f.names[p.Name] = true
		states = append(states, podState{Name: p.Name, Labels: p.Labels, Node: p.Spec.NodeName, Phase: p.Status.Phase,
			Reason: p.Status.Reason, Message: p.Status.Message, StartTime: p.Status.StartTime, Conditions: p.Status.Conditions,
			InitContainers: p.Status.InitContainerStatuses, Containers: p.Status.ContainerStatuses, DeletionTimestamp: p.DeletionTimestamp})
	}
	sort.Slice(states, func(i, j int) bool { return states[i].Name < states[j].Name })
	c.addYAML(b, "pods.yaml", states)
	return pods
}

// cnpgPoolerLabel names the Pooler a PgBouncer Pod runs for.
const cnpgPoolerLabel = "cnpg.io/poolerName"

// eventLine is one Event, as `kubectl get events` shows it.
type eventLine struct {
	Last    metav1.Time `json:"lastSeen"`
	Type    string      `json:"type"`
	Reason  string      `json:"reason"`
	Object  string      `json:"object"`
	Message string      `json:"message"`
	Count   int32       `json:"count,omitempty"`
	Source  string      `json:"source,omitempty"`
}

// events are the Events of the bundle's objects and Pods, oldest first.
func (c Collector) events(ctx context.Context, b *Bundle, f found) {
	list, err := c.Kube.CoreV1().Events(c.Namespace).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.note("events.yaml", fmt.Errorf("list Events: %w", err))
		return
	}
	var out []eventLine
	for _, e := range list.Items {
		if !f.names[e.InvolvedObject.Name] {
			continue
		}
		last := e.LastTimestamp
		if last.IsZero() {
			last = metav1.Time{Time: e.EventTime.Time}
		}
		out = append(out, eventLine{Last: last, Type: e.Type, Reason: e.Reason, Object: e.InvolvedObject.Kind + "/" + e.InvolvedObject.Name,
			Message: e.Message, Count: e.Count, Source: e.Source.Component + e.ReportingController})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Last.Before(&out[j].Last) })
	c.addYAML(b, "events.yaml", out)
}

func (c Collector) addYAML(b *Bundle, name string, v any) {
	y, err := yaml.Marshal(v)
	if err != nil {
		b.note(name, err)
		return
	}
	b.Add(name, y)
}
