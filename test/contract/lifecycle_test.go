package contract_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// The environment's kubeconfig works, and a restarted API server keeps its
// data and serves the same clients again.
func TestKubeconfigAndAPIServerRestart(t *testing.T) {
	cfg, err := clientcmd.BuildConfigFromFlags("", env.KubeconfigPath)
	if err != nil {
		t.Fatalf("load kubeconfig: %v", err)
	}
	fromFile := kubernetes.NewForConfigOrDie(cfg)
	ns := newNamespace(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before-restart", Namespace: ns}}
	if _, err := fromFile.CoreV1().ConfigMaps(ns).Create(t.Context(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create through kubeconfig: %v", err)
	}

	if err := env.RestartAPIServer(t.Context(), 500*time.Millisecond); err != nil {
		t.Fatalf("restart API server: %v", err)
	}
	if _, err := kube.CoreV1().ConfigMaps(ns).Get(t.Context(), "before-restart", metav1.GetOptions{}); err != nil {
		t.Fatalf("object lost across restart: %v", err)
	}
}
