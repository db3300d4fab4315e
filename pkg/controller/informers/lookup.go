package informers

import (
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// IgnoreNotFound turns a lister's or client's not-found into a nil object:
// in a snapshot, an absent child is a fact, not an error.
func IgnoreNotFound[T any](obj *T, err error) (*T, error) {
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	return obj, err
}
