package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/klog/v2"

	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// timelineAnnotation records, on a Secret setpoint generated for a
// cluster of a topology (the superuser's, the monitor's), the Postgres
// timeline its password was last given to CloudNativePG on.
//
// A promotion replays the other site's catalog, passwords included, and
// CloudNativePG does not apply a password again for a Secret whose
// resourceVersion it has applied before: its instance manager remembers
// the versions it applied for as long as the Pod lives (the superuser's),
// and a DatabaseRole's status records the version (the monitor's). A
// cluster demoted and promoted again keeps its Pods and its DatabaseRole
// status, so after the promotion it would keep the other site's
// passwords and nothing of this site could log in. A promotion always
// starts a new timeline: stamping the Secret with it changes its
// resourceVersion once per promotion, and CloudNativePG applies its
// password again.
const timelineAnnotation = "postgres.setpoint.dev/password-timeline"

// restampSecret stamps s, a Secret of this cluster's, with the timeline
// of the CNPG Cluster when it is due (timelineStamp): a cluster that
// takes or took part in a topology, is not a replica by its spec, and
// runs on a timeline the stamp does not name. A Secret setpoint does not
// control is never written.
func restampSecret(ctx context.Context, p *pass, s *corev1.Secret) (*corev1.Secret, error) {
	want := timelineStamp(p)
	if want == "" || s == nil || !ownership.IsControlledBy(s, p.cluster.UID) {
		return s, nil
	}
	cur, stamped := s.Annotations[timelineAnnotation]
	if cur == want || (!stamped && p.cluster.Spec.Topology == nil) {
		return s, nil
	}
	// The resourceVersion binds the patch to the version whose ownership
	// was just checked: a Secret replaced since by someone else's is
	// refused with a conflict, never stamped.
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": s.ResourceVersion, "annotations": map[string]string{timelineAnnotation: want}}})
	if err != nil {
		return nil, fmt.Errorf("stamp Secret %s: %w", s.Name, err)
	}
	out, err := p.deps.kube.CoreV1().Secrets(s.Namespace).Patch(ctx, s.Name, types.MergePatchType, patch,
		metav1.PatchOptions{FieldManager: fieldManager})
	if err != nil {
		return nil, fmt.Errorf("stamp Secret %s with timeline %s: %w", s.Name, want, err)
	}
	klog.FromContext(ctx).V(2).Info("Stamped a Secret with the timeline, so CloudNativePG applies its password again",
		"secret", klog.KObj(out), "timeline", want, "was", cur)
	return out, nil
}

// timelineStamp is the timeline a Secret of a primary is due to carry,
// "" on a replica or before CloudNativePG reports one.
func timelineStamp(p *pass) string {
	cl := p.observedCNPG()
	if cl == nil || p.cluster.IsReplica() || cl.Status.TimelineID == 0 {
		return ""
	}
	return strconv.Itoa(cl.Status.TimelineID)
}
