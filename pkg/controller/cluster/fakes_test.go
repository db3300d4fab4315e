package cluster

import (
	"k8s.io/apimachinery/pkg/runtime"
	kubefakecs "k8s.io/client-go/kubernetes/fake"
	clocktesting "k8s.io/utils/clock/testing"
)

func kubefake(objs ...runtime.Object) *kubefakecs.Clientset { return kubefakecs.NewClientset(objs...) }

// testClock is a pass's own clock, stopped at t0: no test shares one.
func testClock() *clocktesting.FakePassiveClock { return clocktesting.NewFakePassiveClock(t0) }

// discard is an EventRecorder that drops events.
type discard struct{}

func (discard) Event(runtime.Object, string, string, string)          {}
func (discard) Eventf(runtime.Object, string, string, string, ...any) {}
func (discard) AnnotatedEventf(runtime.Object, map[string]string, string, string, string, ...any) {
}
