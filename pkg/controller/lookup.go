package controller

import (
	"time"

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

// Soonest is the smaller positive duration; zero means "no recheck", so
// it loses to any positive one.
func Soonest(a, b time.Duration) time.Duration {
	switch {
	case a <= 0:
		return b
	case b <= 0:
		return a
	}
	return min(a, b)
}
