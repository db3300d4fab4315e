package database

import (
	"bytes"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"

	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// serverCAHandler wakes a cluster's databases when its server CA copy
// (<cluster>-server-ca, which the cluster controller makes and keeps) is
// made or changes: their binding Secrets carry that CA (ca.crt, and the
// jdbc-url), and CNPG's renewal of it changes nothing else a database
// watches.
func (c *Controller) serverCAHandler() cache.ResourceEventHandler {
	wake := func(obj any) {
		s, ok := obj.(*corev1.Secret)
		if !ok {
			return
		}
		ref := metav1.GetControllerOfNoCopy(s)
		if ref == nil || ref.Kind != "PostgresCluster" || s.Name != naming.ServerCASecret(ref.Name) {
			return
		}
		for _, db := range informers.ListDatabasesOf(c.databaseIndex, s.Namespace, ref.Name) {
			c.wake(db)
		}
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: wake,
		UpdateFunc: func(oldObj, newObj any) {
			o, ok1 := oldObj.(*corev1.Secret)
			n, ok2 := newObj.(*corev1.Secret)
			if ok1 && ok2 && bytes.Equal(o.Data[naming.CACertKey], n.Data[naming.CACertKey]) {
				return
			}
			wake(newObj)
		},
	}
}
