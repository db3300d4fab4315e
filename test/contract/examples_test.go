package contract_test

import (
	"context"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/test/envtest"
)

// minExamples is how many example files manifests/examples must hold: issue
// 30 asks for twelve uses, and a count that shrinks is a lost example.
const minExamples = 12

var examplesDir = filepath.Join("..", "..", "manifests", "examples")

// warningRecorder keeps the warnings the API server sends back (deprecated
// or unknown fields, CEL warnings), which client-go would otherwise only log.
type warningRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (w *warningRecorder) HandleWarningHeaderWithContext(_ context.Context, _ int, _ string, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, text)
}

func (w *warningRecorder) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := w.msgs
	w.msgs = nil
	return out
}

// dryRunApply server-side applies objs with DryRun All into ns (objects
// carry no namespace: the examples are applied with kubectl apply -n), in
// order, and returns the warnings the API server sent.
func dryRunApply(ctx context.Context, cfg *rest.Config, rec *warningRecorder, ns string, objs []*unstructured.Unstructured) ([]string, error) {
	for _, o := range objs {
		if o.GetNamespace() == "" {
			o.SetNamespace(ns)
		}
	}
	rec.take()
	_, err := envtest.ApplyObjectsWith(ctx, cfg, metav1.ApplyOptions{
		FieldManager: "kubectl", Force: true, DryRun: []string{metav1.DryRunAll},
	}, objs)
	return rec.take(), err
}

// Every example applies cleanly, server-side and dry-run, on the real API
// server with setpoint's and CNPG's CRDs: no error (a field the schema
// does not declare, a CEL rule broken) and no warning, after the
// prerequisites its header names, in that order.
// Dry-run stores nothing, so the examples cannot disturb each other.
func TestExamplesApply(t *testing.T) {
	ex, err := envtest.LoadExamples(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ex) < minExamples {
		t.Fatalf("manifests/examples holds %d files, want at least %d", len(ex), minExamples)
	}
	ns := newNamespace(t)
	cfg := rest.CopyConfig(env.Config)
	rec := &warningRecorder{}
	cfg.WarningHandlerWithContext = rec

	for _, e := range ex {
		t.Run(e.Name, func(t *testing.T) {
			for _, key := range []string{"Shows", "Prerequisites", "Apply", "Next"} {
				if e.HeaderField(key) == "" {
					t.Errorf("header has no %q line: it says what the example shows, what it needs and what to run next", key+":")
				}
			}
			if len(e.Objects) == 0 {
				t.Fatal("no objects")
			}
			chain, err := ex.WithPrerequisites(e.Name)
			if err != nil {
				t.Fatal(err)
			}
			objs := chain.Objects()
			if err := checkReferences(objs); err != nil {
				t.Errorf("%v (define it in the file or name its example under Prerequisites:)", err)
			}
			// Control for the check above, and a header that names only
			// what the file needs: without its prerequisites the file
			// names something undefined.
			if len(e.Prerequisites) > 0 && checkReferences(envtest.Examples{e}.Objects()) == nil {
				t.Errorf("names prerequisites %v but uses nothing they define", e.Prerequisites)
			}
			warned, err := dryRunApply(t.Context(), cfg, rec, ns, objs)
			if err != nil {
				t.Fatalf("dry-run apply of %s: %v", names(chain), err)
			}
			if len(warned) != 0 {
				t.Errorf("dry-run apply of %s returned warnings: %q", names(chain), warned)
			}
		})
	}

	// Control: the recorder gets the API server's warnings, so an empty
	// list above means something. A finalizer name without a domain draws
	// one on any object (server-side apply refuses unknown fields outright,
	// so those are errors, not warnings).
	t.Run("control: a warning is recorded", func(t *testing.T) {
		chain, err := ex.WithPrerequisites(ex[0].Name)
		if err != nil {
			t.Fatal(err)
		}
		objs := chain.Objects()
		objs[len(objs)-1].SetFinalizers([]string{"example"})
		warned, err := dryRunApply(t.Context(), cfg, rec, ns, objs)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(strings.Join(warned, "\n"), "finalizer") {
			t.Errorf("a finalizer without a domain drew no warning (warnings %q): the check above proves nothing", warned)
		}
	})
}

// An object that two examples both define (a cluster re-applied with an
// annotation, say) has one spec: the second file shows a change to the
// first's object, not a different object under the same name.
func TestExamplesAgreeOnSharedObjects(t *testing.T) {
	ex, err := envtest.LoadExamples(examplesDir)
	if err != nil {
		t.Fatal(err)
	}
	type seen struct {
		file string
		spec any
	}
	first := map[string]seen{}
	for _, e := range ex {
		for _, o := range e.Objects {
			key := o.GetKind() + "/" + o.GetName()
			spec := o.Object["spec"]
			if o.GetKind() == "Secret" {
				spec = map[string]any{"type": o.Object["type"], "data": o.Object["data"], "stringData": o.Object["stringData"]}
			}
			if s, ok := first[key]; ok && !reflect.DeepEqual(s.spec, spec) {
				t.Errorf("%s is defined in %s and %s with different contents", key, s.file, e.Name)
			} else if !ok {
				first[key] = seen{e.Name, spec}
			}
		}
	}
}

// reference is a name an object uses that another object must define.
type reference struct{ kind, name, via string }

// references lists the objects o names: its class, cluster, Secrets, the
// cluster it restores and the PostgresDatabase it adopts from.
func references(o *unstructured.Unstructured) []reference {
	var out []reference
	add := func(kind, via string, path ...string) {
		if v, _, _ := unstructured.NestedString(o.Object, path...); v != "" {
			out = append(out, reference{kind, v, via})
		}
	}
	switch o.GetKind() {
	case "PostgresClusterClass", "PostgresCluster":
		store := []string{"spec", "backup", "objectStore"}
		add("Secret", "spec.backup.objectStore.credentialsSecretName", append(store, "credentialsSecretName")...)
		for _, ref := range [][]string{{"endpointCA"}, {"azureCredentials", "storageAccount"}, {"azureCredentials", "storageKey"},
			{"azureCredentials", "storageSasToken"}, {"googleCredentials", "applicationCredentials"}} {
			add("Secret", "spec.backup.objectStore."+strings.Join(ref, "."), append(append(slices.Clone(store), ref...), "name")...)
		}
	}
	switch o.GetKind() {
	case "PostgresCluster":
		add("PostgresClusterClass", "spec.class", "spec", "class")
		add("Secret", "spec.passwordConfig.superuserExternalSecretRef", "spec", "passwordConfig", "superuserExternalSecretRef", "name")
		add("PostgresCluster", "spec.restore.source", "spec", "restore", "source")
	case "PostgresDatabase":
		add("PostgresCluster", "spec.clusterRef", "spec", "clusterRef", "name")
		add("PostgresDatabase", "spec.adoptFrom", "spec", "adoptFrom")
		dbs, _, _ := unstructured.NestedSlice(o.Object, "spec", "databases")
		for _, d := range dbs {
			db, _ := d.(map[string]any)
			for _, ref := range []string{"adminSecretRef", "rwSecretRef", "roSecretRef"} {
				if v, _, _ := unstructured.NestedString(db, "passwordConfig", ref, "name"); v != "" {
					out = append(out, reference{"Secret", v, "passwordConfig." + ref})
				}
			}
		}
	}
	return out
}

// checkReferences fails when an object names one that objs do not define.
func checkReferences(objs []*unstructured.Unstructured) error {
	defined := map[string]bool{}
	for _, o := range objs {
		defined[o.GetKind()+"/"+o.GetName()] = true
	}
	var missing []string
	for _, o := range objs {
		for _, r := range references(o) {
			if !defined[r.kind+"/"+r.name] {
				missing = append(missing, fmt.Sprintf("%s %s names %s %q (%s)", o.GetKind(), o.GetName(), r.kind, r.name, r.via))
			}
		}
	}
	if len(missing) > 0 {
		return fmt.Errorf("undefined references: %s", strings.Join(missing, "; "))
	}
	return nil
}

func names(ex envtest.Examples) string {
	var out []string
	for _, e := range ex {
		out = append(out, e.Name)
	}
	return strings.Join(out, ", ")
}
