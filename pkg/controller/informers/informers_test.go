package informers

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestTrimForCacheDropsWhatIsNeverRead(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name:          "x",
		ManagedFields: []metav1.ManagedFieldsEntry{{Manager: "kubectl"}},
		Annotations:   map[string]string{lastApplied: `{"big":"copy"}`, "keep": "me"},
	}}
	out, err := (&interner{}).trimForCache(cm)
	if err != nil {
		t.Fatal(err)
	}
	got := out.(*corev1.ConfigMap)
	if got.ManagedFields != nil || got.Annotations[lastApplied] != "" || got.Annotations["keep"] != "me" {
		t.Fatalf("trimmed object = %+v", got.ObjectMeta)
	}
}
