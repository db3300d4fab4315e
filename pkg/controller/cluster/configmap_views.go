package cluster

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1client "k8s.io/client-go/kubernetes/typed/core/v1"

	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
)

// cachedViews is a ConfigMap client for claim: what it reads from the API
// server it hands back as the cache keeps it (informers.CachedConfigMap),
// so that the connection ConfigMap is judged one way whether the cache
// held it or claim had to ask, and no code path holds its data.
type cachedViews struct {
	client corev1client.ConfigMapInterface
}

func (v cachedViews) Get(ctx context.Context, name string, opts metav1.GetOptions) (*informers.CachedConfigMap, error) {
	cm, err := v.client.Get(ctx, name, opts)
	if err != nil {
		return nil, err // as is: claim reads NotFound
	}
	return informers.CachedConfigMapOf(cm), nil
}

func (v cachedViews) Patch(ctx context.Context, name string, pt types.PatchType, data []byte, opts metav1.PatchOptions, subresources ...string) (*informers.CachedConfigMap, error) {
	cm, err := v.client.Patch(ctx, name, pt, data, opts, subresources...)
	if err != nil {
		return nil, err // claim wraps it
	}
	return informers.CachedConfigMapOf(cm), nil
}
