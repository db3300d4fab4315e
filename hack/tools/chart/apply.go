package chart

import (
	"context"
	"errors"
	"fmt"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
	"helm.sh/helm/v4/pkg/kube"
	"helm.sh/helm/v4/pkg/storage/driver"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

// Apply runs `helm upgrade --install` of c as release name in namespace
// on the cluster of kubeconfig, with Helm's own install and upgrade
// actions, their command-line defaults (waiting for hooks only, of which
// the chart has none) and field manager ("helm"),
// release records in Secrets as the helm command keeps them. The e2e
// tier uses it to prove what `helm upgrade` does to the CRDs.
//
// kubeVersion, when set, is the Kubernetes version the chart's
// kubeVersion is checked against instead of the one the API server
// reports: a kube-apiserver built from source without version stamping
// (the test control plane's) reports v0.0.0-master, which no range admits.
// serverSide is --server-side: "true", "false", or for an upgrade "auto"
// (the release's last apply method); an install applies server-side
// unless it is "false".
func Apply(ctx context.Context, kubeconfig, kubeVersion, serverSide string, c *Chart, name, namespace string, values map[string]any) error {
	kube.ManagedFieldsManager = "helm" // as the helm command sets it
	flags := genericclioptions.NewConfigFlags(false)
	flags.KubeConfig, flags.Namespace = &kubeconfig, &namespace
	cfg := action.NewConfiguration()
	if err := cfg.Init(flags, namespace, "secret"); err != nil {
		return fmt.Errorf("helm configuration: %w", err)
	}
	if kubeVersion != "" {
		kv, err := common.ParseKubeVersion(kubeVersion)
		if err != nil {
			return fmt.Errorf("kube version %q: %w", kubeVersion, err)
		}
		cfg.Capabilities = common.DefaultCapabilities.Copy()
		cfg.Capabilities.KubeVersion = *kv
	}
	history := action.NewHistory(cfg)
	history.Max = 1
	if _, err := history.Run(name); errors.Is(err, driver.ErrReleaseNotFound) {
		install := action.NewInstall(cfg)
		install.ReleaseName, install.Namespace, install.WaitStrategy = name, namespace, kube.HookOnlyStrategy
		install.ServerSideApply = serverSide != "false"
		if _, err := install.RunWithContext(ctx, c, values); err != nil {
			return fmt.Errorf("helm install: %w", err)
		}
		return nil
	} else if err != nil {
		return fmt.Errorf("helm history: %w", err)
	}
	upgrade := action.NewUpgrade(cfg)
	upgrade.Namespace, upgrade.WaitStrategy, upgrade.ServerSideApply = namespace, kube.HookOnlyStrategy, serverSide
	if _, err := upgrade.RunWithContext(ctx, name, c, values); err != nil {
		return fmt.Errorf("helm upgrade: %w", err)
	}
	return nil
}
