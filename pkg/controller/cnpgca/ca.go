package cnpgca

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/setpoint-dev/setpoint/pkg/naming"
)

// CACache remembers the CA certificates CNPG publishes in <cluster>-ca.
// Those Secrets are CNPG's, so our label-selected Secret cache does not
// hold them; a CA changes rarely, so one direct read per cluster suffices.
type CACache struct {
	kube kubernetes.Interface
	mu   sync.Mutex
	ca   map[string][]byte
}

// NewCACache returns an empty cache reading through kube.
func NewCACache(kube kubernetes.Interface) *CACache {
	return &CACache{kube: kube, ca: map[string][]byte{}}
}

// Get returns ca.crt of namespace/name, or nil while it does not exist.
func (c *CACache) Get(ctx context.Context, namespace, name string) ([]byte, error) {
	key := namespace + "/" + name
	c.mu.Lock()
	ca, ok := c.ca[key]
	c.mu.Unlock()
	if ok {
		return ca, nil
	}
	s, err := c.kube.CoreV1().Secrets(namespace).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read CA secret %s: %w", key, err)
	}
	ca = s.Data[naming.CACertKey]
	if len(ca) > 0 {
		c.mu.Lock()
		c.ca[key] = ca
		c.mu.Unlock()
	}
	return ca, nil
}

// Forget drops a cluster's CA, for example when the cluster is deleted or
// a connection fails verification.
func (c *CACache) Forget(namespace, name string) {
	c.mu.Lock()
	delete(c.ca, namespace+"/"+name)
	c.mu.Unlock()
}
