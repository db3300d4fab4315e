package cluster

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	kubefakecs "k8s.io/client-go/kubernetes/fake"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/pkg/controller/ownership"
)

// A Secret of a topology's cluster is stamped with the timeline once per
// timeline while the cluster is not a replica (a promotion starts a new
// one, and the new resourceVersion makes CNPG apply the password over the
// replayed one); a cluster that never took part in a topology, a
// replica, and a Secret setpoint does not control are left alone.
func TestSecretsAreStampedOncePerTimelineOfAPrimary(t *testing.T) {
	t.Parallel()
	topology := &pgv1.TopologySpec{Primary: "shop", Peers: []pgv1.TopologyPeer{{Name: "peer"}}}
	replica := &pgv1.TopologySpec{Primary: "peer", Peers: []pgv1.TopologyPeer{{Name: "peer"}}}
	for _, c := range []struct {
		name     string
		topology *pgv1.TopologySpec
		stamp    string // "" for none
		foreign  bool
		want     string // the stamp after; "" for none
		written  bool
	}{
		{"topology primary, first stamp", topology, "", false, "2", true},
		{"topology primary, stamped on this timeline", topology, "2", false, "2", false},
		{"topology primary, promoted since", topology, "1", false, "2", true},
		{"replica", replica, "1", false, "1", false},
		{"topology removed after a promotion", nil, "1", false, "2", true},
		{"never in a topology", nil, "", false, "", false},
		{"not setpoint's Secret", topology, "", true, "", false},
	} {
		p := testPass()
		p.cluster.Spec.Topology = c.topology
		p.obs = &observation{cnpg: &cnpgv1.Cluster{Status: cnpgv1.ClusterStatus{TimelineID: 2}}}
		s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "shop-monitor", Namespace: "ns",
			OwnerReferences: []metav1.OwnerReference{ownership.OwnerRef(p.cluster, gvk)}}}
		if c.foreign {
			s.OwnerReferences = nil
		}
		if c.stamp != "" {
			s.Annotations = map[string]string{timelineAnnotation: c.stamp}
		}
		kube := kubefakecs.NewClientset(s)
		p.deps = &deps{kube: kube}
		got, err := restampSecret(t.Context(), p, s)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if got.Annotations[timelineAnnotation] != c.want {
			t.Errorf("%s: stamp %q, want %q", c.name, got.Annotations[timelineAnnotation], c.want)
		}
		if w := len(writesOf(kube)) > 0; w != c.written {
			t.Errorf("%s: written = %v, want %v", c.name, w, c.written)
		}
	}
}
