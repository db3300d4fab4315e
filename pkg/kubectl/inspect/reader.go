package inspect

import (
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/kubernetes"

	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
)

// Reader reads objects of one namespace. Get requests, no informers: the
// plugin runs once and must show what the API server has now.
type Reader struct {
	Kube      kubernetes.Interface
	PG        versioned.Interface
	Namespace string
}

// found turns a NotFound into (false, nil), so a missing child is a
// finding rather than an error.
func found(err error, what string) (bool, error) {
	switch {
	case err == nil:
		return true, nil
	case apierrors.IsNotFound(err):
		return false, nil
	default:
		return false, fmt.Errorf("get %s: %w", what, err)
	}
}
