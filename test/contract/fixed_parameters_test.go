package contract_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
	"github.com/setpoint-dev/setpoint/test/envtest"
)

// setpointOnlyFixed are the names setpoint refuses beyond CNPG's list: the
// configuration-file directives (see pgv1.FixedParameters).
var setpointOnlyFixed = []string{"include", "include_dir", "include_if_exists"}

// cnpgFixedParameters reads the keys of FixedConfigurationParameters from
// the pinned CloudNativePG module's source (pkg/postgres/configuration.go),
// the list its validating webhook checks.
func cnpgFixedParameters(t *testing.T) []string {
	t.Helper()
	dir, err := envtest.CNPGModuleDir()
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "pkg", "postgres", "configuration.go")
	file, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	ast.Inspect(file, func(n ast.Node) bool {
		vs, ok := n.(*ast.ValueSpec)
		if !ok || len(vs.Names) != 1 || vs.Names[0].Name != "FixedConfigurationParameters" || len(vs.Values) != 1 {
			return true
		}
		lit, ok := vs.Values[0].(*ast.CompositeLit)
		if !ok {
			t.Fatalf("%s: FixedConfigurationParameters is not a map literal", path)
		}
		for _, elt := range lit.Elts {
			key, err := strconv.Unquote(elt.(*ast.KeyValueExpr).Key.(*ast.BasicLit).Value)
			if err != nil {
				t.Fatal(err)
			}
			names = append(names, key)
		}
		return false
	})
	if len(names) == 0 {
		t.Fatalf("%s: FixedConfigurationParameters not found", path)
	}
	return slices.Sorted(slices.Values(names))
}

// setpoint's list of fixed parameters is CNPG's (read from its source)
// plus the include directives, so neither can change without this test
// noticing.
func TestFixedParametersAreCNPGs(t *testing.T) {
	want := slices.Sorted(slices.Values(append(cnpgFixedParameters(t), setpointOnlyFixed...)))
	got := slices.Sorted(slices.Values(pgv1.FixedParameters))
	if !slices.Equal(got, want) {
		t.Fatalf("pgv1.FixedParameters\n  %v\nwant CNPG v1.30.0's FixedConfigurationParameters plus %v\n  %v", got, setpointOnlyFixed, want)
	}
}

// Every fixed parameter, in lowercase and in another spelling, is refused
// by setpoint's PostgresCluster CRD; every one of CNPG's is refused by
// CNPG's own validating webhook on a CNPG Cluster created directly, but
// archive_mode, whose value CNPG's mutating webhook replaces by its own.
func TestFixedParametersRefusedBySetpointAndCNPG(t *testing.T) {
	ns := newNamespace(t)
	cnpgList := cnpgFixedParameters(t)
	dryRun := metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}
	for _, name := range pgv1.FixedParameters {
		t.Run(name, func(t *testing.T) {
			for _, spelling := range []string{name, strings.ToUpper(name[:1]) + name[1:], strings.ToUpper(name)} {
				c := validCluster(ns)
				c.Spec.PostgreSQLConfig = map[string]string{spelling: "setpoint-probe"}
				_, err := pg.PostgresV1alpha1().PostgresClusters(ns).Create(t.Context(), c, dryRun)
				expectRefused(t, err, spelling+": CloudNativePG manages this parameter, it cannot be set in postgresqlConfig")
			}
			if !slices.Contains(cnpgList, name) {
				if !slices.Contains(setpointOnlyFixed, name) {
					t.Fatalf("%s is on neither CNPG's list nor setpoint's additions", name)
				}
				return
			}
			out, err := dyn.Resource(cnpgClustersGVR).Namespace(ns).Create(t.Context(), cnpgClusterWith(name, "setpoint-probe"), dryRun)
			if name == "archive_mode" {
				// CNPG's mutating webhook always writes archive_mode itself
				// (on, always for a replica, off with archiving disabled), so
				// its validating webhook never sees the user's value.
				if err != nil {
					t.Fatalf("archive_mode: %v", err)
				}
				if got, _, _ := unstructured.NestedString(out.Object, "spec", "postgresql", "parameters", name); got != "on" {
					t.Fatalf("archive_mode: CNPG stored %q, want its own value on", got)
				}
				return
			}
			expectRefused(t, err, `admission webhook "vcluster.cnpg.io" denied the request`)
			expectRefused(t, err, `spec.postgresql.parameters.`+name+`: Invalid value: "setpoint-probe": Can't set fixed configuration parameter`)
		})
	}
}

var cnpgClustersGVR = schema.GroupVersionResource{Group: "postgresql.cnpg.io", Version: "v1", Resource: "clusters"}

// cnpgClusterWith is a minimal CNPG Cluster setting one parameter.
func cnpgClusterWith(param, value string) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "postgresql.cnpg.io/v1",
		"kind":       "Cluster",
		"metadata":   map[string]any{"name": "fixed-probe"},
		"spec": map[string]any{
			"instances":  int64(1),
			"storage":    map[string]any{"size": "1Gi"},
			"postgresql": map[string]any{"parameters": map[string]any{param: value}},
		},
	}}
}
