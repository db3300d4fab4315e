package informers

import (
	"slices"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/tools/cache"
	fcache "k8s.io/client-go/tools/cache/testing"
)

// Handlers on one informer are added as one registration that calls each
// in the order given; each informer's HasSynced is returned once, and a
// controller waiting on them sees every handler's initial list.
func TestRegisterAddsAnInformersHandlersAsOne(t *testing.T) {
	source := func(obj *corev1.ConfigMap) cache.SharedIndexInformer {
		src := fcache.NewFakeControllerSource()
		src.Add(obj)
		return cache.NewSharedIndexInformer(src, &corev1.ConfigMap{}, 0, cache.Indexers{})
	}
	one := source(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "s"}})
	other := source(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "c"}})
	var mu sync.Mutex
	var seen []string
	handler := func(name string) cache.ResourceEventHandler {
		return cache.ResourceEventHandlerFuncs{AddFunc: func(obj any) {
			mu.Lock()
			defer mu.Unlock()
			seen = append(seen, name+" "+obj.(metav1.Object).GetName())
		}}
	}
	synced, err := Register([]Registration{
		On(one, handler("first")), On(other, handler("cm")), On(one, handler("second")), On(one, handler("third")),
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(synced) != 2 {
		t.Errorf("%d HasSynced funcs, want one per informer (2)", len(synced))
	}
	go one.RunWithContext(t.Context())
	go other.RunWithContext(t.Context())
	if !cache.WaitForCacheSync(t.Context().Done(), synced...) {
		t.Fatal("not synced")
	}
	mu.Lock()
	defer mu.Unlock()
	var ofOne []string
	for _, s := range seen {
		if s != "cm c" {
			ofOne = append(ofOne, s)
		}
	}
	if want := []string{"first s", "second s", "third s"}; !slices.Equal(ofOne, want) {
		t.Errorf("the first informer's handlers ran %v, want %v", ofOne, want)
	}
	if !slices.Contains(seen, "cm c") {
		t.Errorf("the other informer's handler did not run: %v", seen)
	}
}
