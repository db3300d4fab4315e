package envtest

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// snapshotModule holds the VolumeSnapshot CRDs, at the version CNPG
// v1.30.0 requires.
const snapshotModule = "github.com/kubernetes-csi/external-snapshotter/client/v8@v8.6.0"

// BypassCNPGWebhooksLabel on a CNPG object (any value) keeps CNPG's
// webhooks away from it, as for an object stored before they were
// installed: tests of what CNPG does with such objects (its admission guard
// re-validating in the reconcile loop, say) label them. CNPG's release
// manifest has no objectSelector; envtest adds this one.
const BypassCNPGWebhooksLabel = "envtest.setpoint.dev/bypass-cnpg-webhooks"

// cnpgWebhookConfigurations are the objects of CNPG's release manifest
// that register its admission webhooks.
var cnpgWebhookConfigurations = map[string]schema.GroupVersionResource{
	"cnpg-mutating-webhook-configuration":   {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "mutatingwebhookconfigurations"},
	"cnpg-validating-webhook-configuration": {Group: "admissionregistration.k8s.io", Version: "v1", Resource: "validatingwebhookconfigurations"},
}

var cnpgClusterGVR = schema.GroupVersionResource{Group: "postgresql.cnpg.io", Version: "v1", Resource: "clusters"}

// installSnapshotCRDs installs the snapshot.storage.k8s.io CRDs from the
// external-snapshotter client module: CNPG's webhook accepts a
// volume-snapshot backup only when it found them at start.
func installSnapshotCRDs(ctx context.Context, cfg *rest.Config) error {
	dirs, err := moduleDirs(snapshotModule)
	if err != nil {
		return err
	}
	notSnapshot := func(name string) bool { return !strings.HasSuffix(name, ".snapshot.storage.k8s.io") }
	return installCRDs(ctx, cfg, []string{filepath.Join(dirs[0], "config", "crd")}, notSnapshot)
}

// installWebhookConfigurations applies CNPG's two webhook configurations
// from its release manifest, each webhook pointed at url (its service
// replaced by the same path on url) and trusting caPEM.
func installWebhookConfigurations(ctx context.Context, cfg *rest.Config, url string, caPEM []byte) error {
	manifest, err := CNPGReleaseManifest()
	if err != nil {
		return err
	}
	objs, err := DecodeFile(manifest)
	if err != nil {
		return err
	}
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	found := 0
	for _, obj := range objs {
		gvr, ok := cnpgWebhookConfigurations[obj.GetName()]
		if !ok || !strings.HasSuffix(obj.GetKind(), "WebhookConfiguration") {
			continue
		}
		if err := pointWebhooksAt(obj, url, caPEM); err != nil {
			return fmt.Errorf("%s: %w", obj.GetName(), err)
		}
		if _, err := client.Resource(gvr).Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "envtest", Force: true}); err != nil {
			return fmt.Errorf("install %s: %w", obj.GetName(), err)
		}
		found++
	}
	if found != len(cnpgWebhookConfigurations) {
		return fmt.Errorf("%s: found %d of CNPG's %d webhook configurations", manifest, found, len(cnpgWebhookConfigurations))
	}
	return nil
}

// pointWebhooksAt replaces each webhook's clientConfig.service by a URL
// with the service's path, and leaves out objects labelled
// BypassCNPGWebhooksLabel.
func pointWebhooksAt(obj *unstructured.Unstructured, url string, caPEM []byte) error {
	hooks, _, err := unstructured.NestedSlice(obj.Object, "webhooks")
	if err != nil || len(hooks) == 0 {
		return fmt.Errorf("no webhooks: %v", err)
	}
	for i, h := range hooks {
		hook, _ := h.(map[string]any)
		path, _, _ := unstructured.NestedString(hook, "clientConfig", "service", "path")
		if path == "" {
			return fmt.Errorf("webhook %v has no service path", hook["name"])
		}
		hook["clientConfig"] = map[string]any{
			"url":      url + path,
			"caBundle": base64.StdEncoding.EncodeToString(caPEM),
		}
		if _, ok := hook["objectSelector"]; ok {
			return fmt.Errorf("webhook %v already has an objectSelector", hook["name"])
		}
		hook["objectSelector"] = map[string]any{"matchExpressions": []any{
			map[string]any{"key": BypassCNPGWebhooksLabel, "operator": "DoesNotExist"},
		}}
		hooks[i] = hook
	}
	return unstructured.SetNestedSlice(obj.Object, hooks, "webhooks")
}

// probeWebhooks succeeds once the API server calls both of CNPG's webhooks
// (it loads new configurations asynchronously): a dry-run Cluster comes
// back defaulted (CNPG's mutating webhook names its image) and one with a
// fixed parameter is denied by its validating webhook.
func probeWebhooks(ctx context.Context, cfg *rest.Config) error {
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	clusters := client.Resource(cnpgClusterGVR).Namespace(metav1.NamespaceDefault)
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	out, err := clusters.Create(ctx, probeCluster(nil), dryRun)
	if err != nil {
		return fmt.Errorf("dry-run create of a valid Cluster: %w", err)
	}
	if image, _, _ := unstructured.NestedString(out.Object, "spec", "imageName"); image == "" {
		return errors.New("mutating webhook not called yet: no default imageName")
	}
	_, err = clusters.Create(ctx, probeCluster(map[string]any{"port": "5433"}), dryRun)
	if err == nil || !strings.Contains(err.Error(), `admission webhook "vcluster.cnpg.io" denied the request`) {
		return fmt.Errorf("validating webhook not called yet: a Cluster setting port got %v", err)
	}
	return nil
}

func probeCluster(params map[string]any) *unstructured.Unstructured {
	spec := map[string]any{"instances": int64(1), "storage": map[string]any{"size": "1Gi"}}
	if params != nil {
		spec["postgresql"] = map[string]any{"parameters": params}
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "postgresql.cnpg.io/v1",
		"kind":       "Cluster",
		"metadata":   map[string]any{"name": "envtest-webhook-probe"},
		"spec":       spec,
	}}
}
