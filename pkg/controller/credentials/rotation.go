package credentials

import (
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// Annotations a rotation writes on a generated Secret, in the same write
// as the new password. The Secret is the record of what was done: a
// request is done when its id is here, so an operator killed between the
// write and the status update neither skips the request nor repeats it.
const (
	RotatedForAnnotation = "postgres.setpoint.dev/password-rotated-for"
	RotatedAtAnnotation  = "postgres.setpoint.dev/password-rotated-at"
)

// RotationRequest is the request id on obj ("" when none).
func RotationRequest(obj metav1.Object) string {
	return obj.GetAnnotations()[pgv1.RotatePasswordsAnnotation]
}

// NewSecretRotation are the annotations of a Secret generated while owner
// has a rotation request pending: a password generated now already
// answers it, so it is not rotated again right after its creation.
func NewSecretRotation(owner metav1.Object, at time.Time) map[string]string {
	request := RotationRequest(owner)
	if request == "" {
		return nil
	}
	return map[string]string{RotatedForAnnotation: request, RotatedAtAnnotation: at.UTC().Format(time.RFC3339)}
}

// RotationOf is the last rotation recorded on a Secret, nil when none.
func RotationOf(s *corev1.Secret) *pgv1.PasswordRotation {
	req := s.Annotations[RotatedForAnnotation]
	if req == "" {
		return nil
	}
	at, err := time.Parse(time.RFC3339, s.Annotations[RotatedAtAnnotation])
	if err != nil {
		at = time.Time{} // someone edited it; the request is still done
	}
	return &pgv1.PasswordRotation{Request: req, RotatedAt: metav1.NewTime(at)}
}

// RotationDone reports whether s already answers request.
func RotationDone(s *corev1.Secret, request string) bool {
	return s.Annotations[RotatedForAnnotation] == request
}

// EnsureRotated makes s answer request: nothing when it already does
// (the cached copy says so, or the API server's does — a cache that lags
// behind an earlier rotation must not cause a second one, nor a conflict
// that would flap the status), else rotatePassword on the live Secret. It
// returns the Secret as it now stands and whether this call rotated it.
func EnsureRotated(ctx context.Context, client typedcorev1.SecretInterface, cached *corev1.Secret, request, fieldManager string, now time.Time) (*corev1.Secret, bool, error) {
	if RotationDone(cached, request) {
		return cached, false, nil
	}
	live, err := client.Get(ctx, cached.Name, metav1.GetOptions{})
	if err != nil {
		return cached, false, fmt.Errorf("read Secret %s before rotating it: %w", cached.Name, err)
	}
	if RotationDone(live, request) {
		return live, false, nil
	}
	out, err := rotatePassword(ctx, client, live, request, fieldManager, now)
	if err != nil {
		return cached, false, err
	}
	return out, true, nil
}

// rotatePassword writes a new random password into s with the request's
// annotations, in one merge patch guarded by s's resourceVersion: when s
// changed since it was read (a stale cache, perhaps right after an earlier
// rotation) the write fails with a conflict instead of rotating twice.
// Only the password key changes; username and every other key stay.
func rotatePassword(ctx context.Context, client typedcorev1.SecretInterface, s *corev1.Secret, request, fieldManager string, now time.Time) (*corev1.Secret, error) {
	patch, err := json.Marshal(map[string]any{
		"metadata": map[string]any{
			"resourceVersion": s.ResourceVersion,
			"annotations": map[string]string{
				RotatedForAnnotation: request,
				RotatedAtAnnotation:  now.UTC().Format(time.RFC3339),
			},
		},
		"data": map[string][]byte{corev1.BasicAuthPasswordKey: []byte(rand.Text())},
	})
	if err != nil {
		return nil, fmt.Errorf("encode rotation of Secret %s: %w", s.Name, err)
	}
	out, err := client.Patch(ctx, s.Name, types.MergePatchType, patch, metav1.PatchOptions{FieldManager: fieldManager})
	if err != nil {
		// The patch holds the password: never quote it, name the Secret.
		return nil, fmt.Errorf("rotate password in Secret %s: %w", s.Name, err)
	}
	return out, nil
}
