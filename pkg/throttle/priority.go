package throttle

import "context"

type urgentKey struct{}

// Urgent marks the requests made with the returned context as served
// before the others waiting for a token.
func Urgent(ctx context.Context) context.Context {
	return context.WithValue(ctx, urgentKey{}, true)
}

// isUrgent reports whether ctx was marked by Urgent.
func isUrgent(ctx context.Context) bool {
	u, _ := ctx.Value(urgentKey{}).(bool)
	return u
}
