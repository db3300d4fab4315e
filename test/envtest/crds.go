package envtest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// CNPG modules whose zips carry the real CRDs under config/crd/bases.
var crdModules = []string{
	cnpgModule,
	barmanCloudModule,
}

// barmanCloudModule is the barman-cloud plugin at the version whose CRDs
// the tests install and whose release manifest the real-CNPG tier applies
// (test/controlplane/barmancloud pins the same for its images).
const barmanCloudModule = "github.com/cloudnative-pg/plugin-barman-cloud@v0.14.0"

// cnpgModule is CloudNativePG at the version whose CRDs, release manifest
// (webhook configurations) and manager (test/controlplane/cnpg) the tests
// run.
const cnpgModule = "github.com/cloudnative-pg/cloudnative-pg@v" + cnpgVersion

const cnpgVersion = "1.30.0"

var crdGVR = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}

// defaultCRDDirs returns setpoint's manifests/crd, the Prometheus
// Operator's PodMonitor CRD in test/envtest/crds (generated from its pinned
// API types by `make manifests`; the module zip of those types carries no
// CRD files) and the CRD directories of the pinned CNPG module zips,
// downloaded through the Go module proxy without compiling any of their code.
func defaultCRDDirs() ([]string, error) {
	root, err := repoRoot()
	if err != nil {
		return nil, err
	}
	dirs := []string{filepath.Join(root, "manifests", "crd"), filepath.Join(root, "test", "envtest", "crds")}
	cnpg, err := ModuleCRDDirs()
	if err != nil {
		return nil, err
	}
	return append(dirs, cnpg...), nil
}

// ModuleCRDDirs downloads (or finds in the module cache) the pinned CNPG
// modules and returns their config/crd/bases directories.
func ModuleCRDDirs() ([]string, error) {
	mods, err := moduleDirs(crdModules...)
	if err != nil {
		return nil, err
	}
	dirs := make([]string, len(mods))
	for i, dir := range mods {
		dirs[i] = filepath.Join(dir, "config", "crd", "bases")
	}
	return dirs, nil
}

// moduleDirs downloads (or finds in the module cache) the given
// module@version zips and returns their extracted directories, in order.
func moduleDirs(modules ...string) ([]string, error) {
	cmd := exec.Command("go", append([]string{"mod", "download", "-json"}, modules...)...)
	// Outside any module, so the operator's go.mod is neither read nor changed.
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOWORK=off")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("go mod download %v: %w: %s", modules, err, stderr.String())
	}
	var dirs []string
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		var m struct{ Path, Dir, Error string }
		if err := dec.Decode(&m); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decode go mod download output: %w", err)
		}
		if m.Error != "" {
			return nil, fmt.Errorf("download %s: %s", m.Path, m.Error)
		}
		dirs = append(dirs, m.Dir)
	}
	if len(dirs) != len(modules) {
		return nil, fmt.Errorf("go mod download %v: got %d directories", modules, len(dirs))
	}
	return dirs, nil
}

// installCRDs applies every CRD in dirs but those skip (when set) names,
// and waits until all are Established.
func installCRDs(ctx context.Context, cfg *rest.Config, dirs []string, skip func(string) bool) error {
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	crds := client.Resource(crdGVR)
	var names []string
	for _, dir := range dirs {
		objs, err := readCRDs(dir)
		if err != nil {
			return err
		}
		for _, obj := range objs {
			if skip != nil && skip(obj.GetName()) {
				continue
			}
			if _, err := crds.Apply(ctx, obj.GetName(), obj, metav1.ApplyOptions{FieldManager: "envtest", Force: true}); err != nil {
				return fmt.Errorf("install CRD %s: %w", obj.GetName(), err)
			}
			names = append(names, obj.GetName())
		}
	}
	for _, name := range names {
		if err := waitEstablished(ctx, crds, name); err != nil {
			return err
		}
	}
	return nil
}

func readCRDs(dir string) ([]*unstructured.Unstructured, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(files) == 0 {
		return nil, fmt.Errorf("no CRD files in %s: %v", dir, err)
	}
	var crds []*unstructured.Unstructured
	for _, f := range files {
		objs, err := DecodeFile(f)
		if err != nil {
			return nil, err
		}
		for _, obj := range objs {
			if obj.GetKind() == "CustomResourceDefinition" {
				crds = append(crds, obj)
			}
		}
	}
	return crds, nil
}

func waitEstablished(ctx context.Context, crds dynamic.NamespaceableResourceInterface, name string) error {
	for {
		obj, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err == nil && isEstablished(obj) {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("CRD %s not Established: %w", name, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

func isEstablished(obj *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if ok && m["type"] == "Established" && strings.EqualFold(fmt.Sprint(m["status"]), "true") {
			return true
		}
	}
	return false
}

// CNPGModuleDir downloads (or finds in the module cache) the pinned
// CloudNativePG module and returns its directory: its source, CRDs and
// release manifest, read by contract tests without compiling it.
func CNPGModuleDir() (string, error) {
	dirs, err := moduleDirs(cnpgModule)
	if err != nil {
		return "", err
	}
	return dirs[0], nil
}
