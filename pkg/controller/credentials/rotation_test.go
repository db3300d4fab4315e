package credentials

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/fake"
)

// A cache that lags behind a rotation must neither rotate again nor fail:
// the live Secret decides, and is what the caller records.
func TestEnsureRotatedTrustsTheLiveSecretOverAStaleCache(t *testing.T) {
	stale := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "ns", ResourceVersion: "1"},
		Data: map[string][]byte{"username": []byte("u"), "password": []byte("old")}}
	live := stale.DeepCopy()
	live.ResourceVersion = "2"
	live.Annotations = map[string]string{RotatedForAnnotation: "r1", RotatedAtAnnotation: "2026-11-30T12:00:00Z"}
	live.Data["password"] = []byte("new")
	kube := fake.NewClientset(live)
	client := kube.CoreV1().Secrets("ns")

	got, rotated, err := EnsureRotated(t.Context(), client, stale, "r1", "test", time.Now())
	if err != nil || rotated || string(got.Data["password"]) != "new" {
		t.Fatalf("rotated %v, password %q, err %v", rotated, got.Data["password"], err)
	}
	if r := RotationOf(got); r == nil || r.Request != "r1" || r.RotatedAt.Hour() != 12 {
		t.Errorf("rotation = %+v", r)
	}
	for _, a := range kube.Actions() {
		if a.GetVerb() != "get" {
			t.Errorf("wrote %s", a.GetVerb())
		}
	}

	// A new request rotates once: new password, request id, nothing else.
	got, rotated, err = EnsureRotated(t.Context(), client, got, "r2", "test", time.Now())
	if err != nil || !rotated || string(got.Data["password"]) == "new" || len(got.Data["password"]) < 20 ||
		string(got.Data["username"]) != "u" || got.Annotations[RotatedForAnnotation] != "r2" {
		t.Fatalf("second request: rotated %v, %+v, err %v", rotated, got.ObjectMeta, err)
	}
	// Already done when cached: no request at all.
	kube.ClearActions()
	if _, rotated, err = EnsureRotated(t.Context(), client, got, "r2", "test", time.Now()); err != nil || rotated || len(kube.Actions()) != 0 {
		t.Errorf("done request: rotated %v, %d requests, err %v", rotated, len(kube.Actions()), err)
	}
}
