package controller

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kubefake "k8s.io/client-go/kubernetes/fake"

	pgfake "github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned/fake"
)

// Without the barman-cloud CRD no ObjectStore informer is created (it would
// never sync), and the lister finds nothing.
func TestObjectStoresOptional(t *testing.T) {
	inf := NewInformers(kubefake.NewClientset(), pgfake.NewClientset(), "", 0)
	inf.ObjectStoresMissing = true
	informer, lister := inf.ObjectStores()
	if informer != nil {
		t.Fatal("an ObjectStore informer without its CRD")
	}
	if _, err := lister.ObjectStores("ns").Get("shop-backup"); !apierrors.IsNotFound(err) {
		t.Errorf("Get = %v, want NotFound", err)
	}
	inf.Setpoint.Start(t.Context().Done())
	if n := len(inf.Setpoint.WaitForCacheSync(t.Context().Done())); n != 0 {
		t.Errorf("%d informers started, want none", n)
	}

	inf = NewInformers(kubefake.NewClientset(), pgfake.NewClientset(), "", 0)
	if informer, _ := inf.ObjectStores(); informer == nil {
		t.Error("no ObjectStore informer with the CRD installed")
	}
}
