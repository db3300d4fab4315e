package cluster

import (
	"k8s.io/apimachinery/pkg/types"

	"github.com/setpoint-dev/setpoint/pkg/workqueue"
)

// Wake queues a pass of the cluster: the collector calls it when a sample
// crosses an edge. The pass decides from the snapshot, as for any event.
func (c *Controller) Wake(key types.NamespacedName) {
	c.queue.Add(workqueue.Key{Namespace: key.Namespace, Name: key.Name})
}
