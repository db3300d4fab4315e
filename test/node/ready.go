package node

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// waitNodeReady polls the Node until its Ready condition is True, a
// process the node started exits, or ctx ends.
func (n *Node) waitNodeReady(ctx context.Context) error {
	client, err := kubernetes.NewForConfig(n.Config)
	if err != nil {
		return fmt.Errorf("client: %w", err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	kubelet := n.procs[len(n.procs)-1]
	return kubelet.WaitFor(ctx, "the Node to be Ready", func(ctx context.Context) error {
		for _, p := range n.procs {
			if p.Exited() {
				cancel() // nothing to wait for any more
				return fmt.Errorf("%s exited:\n%s", p.Name(), p.Tail())
			}
		}
		node, err := client.CoreV1().Nodes().Get(ctx, n.Name, metav1.GetOptions{})
		if err != nil {
			return err
		}
		for _, c := range node.Status.Conditions {
			if c.Type == corev1.NodeReady {
				if c.Status == corev1.ConditionTrue {
					return nil
				}
				return fmt.Errorf("node %s not Ready: %s: %s", n.Name, c.Reason, c.Message)
			}
		}
		return fmt.Errorf("node %s has no Ready condition yet", n.Name)
	})
}
