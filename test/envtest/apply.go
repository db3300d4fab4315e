package envtest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
)

// ApplyFiles server-side applies every object in the YAML files, as
// `kubectl apply --server-side` would, and returns them.
func ApplyFiles(ctx context.Context, cfg *rest.Config, fieldManager string, files ...string) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	for _, f := range files {
		more, err := DecodeFile(f)
		if err != nil {
			return nil, err
		}
		objs = append(objs, more...)
	}
	return ApplyObjects(ctx, cfg, fieldManager, objs)
}

// ApplyObjects server-side applies objs in order (a namespaced object
// without a namespace goes to "default") and returns what the API server
// stored.
func ApplyObjects(ctx context.Context, cfg *rest.Config, fieldManager string, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	return ApplyObjectsWith(ctx, cfg, metav1.ApplyOptions{FieldManager: fieldManager, Force: true}, objs)
}

// ApplyObjectsWith is ApplyObjects with the caller's options, for example
// DryRun to have the API server judge objects without storing them (it
// then returns what it would have stored).
func ApplyObjectsWith(ctx context.Context, cfg *rest.Config, opts metav1.ApplyOptions, objs []*unstructured.Unstructured) ([]*unstructured.Unstructured, error) {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("dynamic client: %w", err)
	}
	disc, err := discovery.NewDiscoveryClientForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("discovery client: %w", err)
	}
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(disc))
	var applied []*unstructured.Unstructured
	for _, obj := range objs {
		gvk := obj.GroupVersionKind()
		m, err := mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
		if err != nil {
			// A kind whose CRD this very list just created: discover again.
			mapper.Reset()
			if m, err = mapper.RESTMapping(gvk.GroupKind(), gvk.Version); err != nil {
				return nil, fmt.Errorf("%s %s: %w", gvk.Kind, obj.GetName(), err)
			}
		}
		var ri dynamic.ResourceInterface = dyn.Resource(m.Resource)
		if m.Scope.Name() == meta.RESTScopeNameNamespace {
			if obj.GetNamespace() == "" {
				obj.SetNamespace(metav1.NamespaceDefault)
			}
			ri = dyn.Resource(m.Resource).Namespace(obj.GetNamespace())
		}
		out, err := ri.Apply(ctx, obj.GetName(), obj, opts)
		if err != nil {
			return nil, fmt.Errorf("apply %s %s: %w", gvk.Kind, obj.GetName(), err)
		}
		applied = append(applied, out)
	}
	return applied, nil
}

// DecodeFile reads every object of a multi-document YAML file.
func DecodeFile(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	objs, err := DecodeYAML(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return objs, nil
}

// DecodeYAML reads every object of a multi-document YAML (or JSON) text.
func DecodeYAML(data []byte) ([]*unstructured.Unstructured, error) {
	var objs []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader(data), 4096)
	for {
		obj := &unstructured.Unstructured{}
		if err := dec.Decode(&obj.Object); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decode: %w", err)
		}
		if len(obj.Object) > 0 {
			objs = append(objs, obj)
		}
	}
	return objs, nil
}
