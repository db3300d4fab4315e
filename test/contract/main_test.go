// Package contract_test checks setpoint's contracts with the real API
// server: the validation rules of our CRDs, every CNPG object shape we
// write against CNPG's real CRDs, and garbage collection of owned children.
package contract_test

import (
	"testing"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/setpoint-dev/setpoint/pkg/generated/clientset/versioned"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

var (
	env  *envtest.Environment
	kube kubernetes.Interface
	pg   versioned.Interface
	dyn  dynamic.Interface
)

func TestMain(m *testing.M) {
	envtest.RunMain(m, envtest.Options{}, func(e *envtest.Environment) {
		env = e
		kube = kubernetes.NewForConfigOrDie(e.Config)
		pg = versioned.NewForConfigOrDie(e.Config)
		dyn = dynamic.NewForConfigOrDie(e.Config)
	})
}
