package controllertest

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/kubernetes/fake"
)

func TestSendsComparesWholeObjects(t *testing.T) {
	t.Parallel()
	cs := fake.NewClientset()
	api := NewAPI(cs)
	cms := cs.CoreV1().ConfigMaps("ns")
	sent := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"k": "v"}},
		Data: map[string]string{"x": "1", "secret": "made-up"}}
	if _, err := cms.Create(t.Context(), sent, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Apply(t.Context(), corev1ac.ConfigMap("a", "ns").WithData(map[string]string{"x": "2"}), metav1.ApplyOptions{FieldManager: "m", Force: true}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Patch(t.Context(), "a", types.MergePatchType, []byte(`{"metadata":{"resourceVersion":"1002","labels":null}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	w := Writes(api.Actions())
	create, apply, merge := w[0], w[1], w[2]

	same := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"k": "v"}},
		Data: map[string]string{"x": "1", "secret": "anything"}}
	if msg := Sends(same, Generated("data", "secret"))(create); msg != "" {
		t.Errorf("the object sent, its generated value aside: %s", msg)
	}
	if msg := Sends(same)(create); !strings.Contains(msg, `-  "secret": "anything"`) || !strings.Contains(msg, `+  "secret": "made-up"`) {
		t.Errorf("a value that differs: %q, want a diff naming it", msg)
	}
	if msg := Sends(same, Generated("data", "other"))(create); !strings.Contains(msg, "data.other not set") {
		t.Errorf("a generated value missing: %q", msg)
	}
	if msg := Sends(corev1ac.ConfigMap("a", "ns").WithData(map[string]string{"x": "2"}))(apply); msg != "" {
		t.Errorf("the apply body: %s", msg)
	}
	if msg := Sends(corev1ac.ConfigMap("a", "ns").WithData(map[string]string{"x": "2"}).WithLabels(map[string]string{"k": "v"}))(apply); msg == "" {
		t.Error("an apply body compared without a field the expected one sets")
	}
	if msg := Sends(`{"metadata":{"resourceVersion":"` + AnyVersion + `","labels":null}}`)(merge); msg != "" {
		t.Errorf("a merge patch guarded by a resourceVersion: %s", msg)
	}
	if msg := Sends(`{"metadata":{"labels":null}}`)(merge); msg != "" {
		t.Errorf("a resourceVersion the expected patch leaves out is the server's: %s", msg)
	}

	// The end state: what the API server filled in is not compared.
	stored, err := cms.Get(t.Context(), "a", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if stored.ResourceVersion == "" || stored.UID == "" {
		t.Fatalf("stored %+v, want a version and a UID", stored.ObjectMeta)
	}
	want := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Namespace: "ns"}, Data: map[string]string{"x": "2", "secret": "made-up"}}
	if d := Diff(want, stored); d != "" {
		t.Errorf("stored: %s", d)
	}
	want.UID = "another"
	if d := Diff(want, stored); !strings.Contains(d, `"uid"`) {
		t.Errorf("a UID the expected object sets: %q, want it compared", d)
	}
}
