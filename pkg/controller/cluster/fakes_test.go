package cluster

import (
	"k8s.io/apimachinery/pkg/runtime"
	kubefakecs "k8s.io/client-go/kubernetes/fake"
)

func kubefake(objs ...runtime.Object) *kubefakecs.Clientset { return kubefakecs.NewClientset(objs...) }

// discard is an EventRecorder that drops events.
type discard struct{}

func (discard) Event(runtime.Object, string, string, string)          {}
func (discard) Eventf(runtime.Object, string, string, string, ...any) {}
func (discard) AnnotatedEventf(runtime.Object, map[string]string, string, string, string, ...any) {
}
