package envtest

import (
	"context"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
)

// startForTest starts an Environment for one test, skipping without built
// binaries unless make test requires them.
func startForTest(t *testing.T, opts Options) *Environment {
	t.Helper()
	if _, err := findBinDir(); err != nil {
		if os.Getenv(RequireEnv) == "1" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
	env, err := Start(t.Context(), opts)
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	t.Cleanup(env.Stop)
	return env
}

// CNPG's webhooks run by default: a Cluster with a fixed parameter is
// refused by CNPG's own validating webhook, and the manager's death is
// reported instead of leaving every CNPG write to fail.
func TestCNPGWebhooks(t *testing.T) {
	exited := make(chan error, 1)
	env := startForTest(t, Options{OnCNPGExit: func(err error) { exited <- err }})
	client := dynamic.NewForConfigOrDie(env.Config).Resource(cnpgClusterGVR).Namespace(metav1.NamespaceDefault)

	_, err := client.Create(t.Context(), probeCluster(map[string]any{"listen_addresses": "*"}), metav1.CreateOptions{})
	// CNPG answers with a field error list: the API server reports 422 Invalid.
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `admission webhook "vcluster.cnpg.io" denied the request`) ||
		!strings.Contains(err.Error(), "listen_addresses") {
		t.Fatalf("a Cluster setting listen_addresses: got %v, want CNPG's webhook denial naming it", err)
	}

	bypass := probeCluster(map[string]any{"listen_addresses": "*"})
	bypass.SetLabels(map[string]string{BypassCNPGWebhooksLabel: "true"})
	if _, err := client.Create(t.Context(), bypass, metav1.CreateOptions{}); err != nil {
		t.Fatalf("a Cluster labelled %s: %v", BypassCNPGWebhooksLabel, err)
	}

	if err := syscall.Kill(env.cnpg.proc.cmd.Process.Pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if !strings.Contains(err.Error(), "CloudNativePG's webhook server (cnpg-manager) exited") {
			t.Fatalf("exit report: %v", err)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the webhook server's death was not reported within 30s")
	}
}

// Without the webhooks a Cluster CNPG would refuse is stored, and CNPG's
// CRDs skipped at start defer the webhooks until InstallCRDs adds them.
func TestCNPGWebhooksDeferredAndOff(t *testing.T) {
	isCNPG := func(name string) bool { return strings.HasSuffix(name, ".postgresql.cnpg.io") }
	env := startForTest(t, Options{SkipCRDs: isCNPG})
	if env.cnpg != nil || !env.cnpgPending {
		t.Fatalf("webhooks started without CNPG's CRDs (running %v, pending %v)", env.cnpg != nil, env.cnpgPending)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := env.InstallCRDs(ctx, isCNPG); err != nil {
		t.Fatal(err)
	}
	if env.cnpg == nil || env.cnpgPending {
		t.Fatal("webhooks not started once CNPG's CRDs were installed")
	}

	off := startForTest(t, Options{NoCNPGWebhooks: true})
	client := dynamic.NewForConfigOrDie(off.Config).Resource(cnpgClusterGVR).Namespace(metav1.NamespaceDefault)
	if _, err := client.Create(t.Context(), probeCluster(map[string]any{"listen_addresses": "*"}), metav1.CreateOptions{}); err != nil {
		t.Fatalf("without webhooks the CRD alone should accept it: %v", err)
	}
}
