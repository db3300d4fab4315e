package cluster

import (
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// isAdmissionDenial reports whether err is an admission webhook (CNPG's
// validating webhook, in a real installation) refusing what we wrote. The
// API server answers 403 Forbidden "admission webhook "NAME" denied the
// request: ..." unless the webhook chose another code (CNPG's field errors
// come back 422 Invalid). Retrying the same spec cannot succeed, so it is a
// Failed spec like an Invalid one, with the webhook's message.
func isAdmissionDenial(err error) bool {
	if !apierrors.IsForbidden(err) {
		return false
	}
	msg := err.Error()
	return strings.Contains(msg, "admission webhook ") && strings.Contains(msg, " denied the request")
}
