package chart

import (
	"context"
	"fmt"

	"helm.sh/helm/v4/pkg/action"
	"helm.sh/helm/v4/pkg/chart/common"
)

// DryRunInstall runs `helm install --dry-run=client` of c on a cluster of
// kubeVersion (e.g. "v1.35.0"): Helm's own install action, which checks
// the values against values.schema.json and the chart's kubeVersion
// before it renders, and talks to no API server.
func DryRunInstall(ctx context.Context, c *Chart, name, namespace, kubeVersion string, values map[string]any) error {
	kv, err := common.ParseKubeVersion(kubeVersion)
	if err != nil {
		return fmt.Errorf("kube version %q: %w", kubeVersion, err)
	}
	install := action.NewInstall(&action.Configuration{})
	install.DryRunStrategy = action.DryRunClient
	install.ReleaseName, install.Namespace, install.KubeVersion = name, namespace, kv
	if _, err := install.RunWithContext(ctx, c, values); err != nil {
		return fmt.Errorf("helm install: %w", err)
	}
	return nil
}
