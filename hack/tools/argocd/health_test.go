package argocd_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/hack/tools/argocd"
)

// group holds setpoint's health script, in Argo CD's resource
// customization layout: health.lua, health_test.yaml, testdata/.
const group = "../../../manifests/argocd/resource_customizations/postgres.setpoint.dev"

// statuses are the health statuses the test objects of each kind must
// show the script returning (only a cluster waits for its user).
var statuses = map[string][]string{
	"PostgresCluster":  {"Healthy", "Progressing", "Degraded", "Suspended"},
	"PostgresDatabase": {"Healthy", "Progressing", "Degraded"},
}

// healthTests is a health_test.yaml, in Argo CD's format.
type healthTests struct {
	Tests []healthTest `json:"tests"`
}

type healthTest struct {
	HealthStatus argocd.Health `json:"healthStatus"`
	InputPath    string        `json:"inputPath"`
}

// The health script returns, for each test object of health_test.yaml
// (objects as setpoint wrote them in the e2e tier), the status and
// message expected, run as Argo CD runs it; together they show every
// status each kind can have, and every object in testdata/ is tested.
func TestHealthScript(t *testing.T) {
	script, err := os.ReadFile(filepath.Join(group, "health.lua"))
	if err != nil {
		t.Fatal(err)
	}
	var tests healthTests
	readYAML(t, filepath.Join(group, "health_test.yaml"), &tests)
	seen := map[string]map[string]bool{}
	for _, tc := range tests.Tests {
		var obj map[string]any
		readYAML(t, filepath.Join(group, tc.InputPath), &obj)
		got, err := argocd.Run(string(script), obj)
		if err != nil {
			t.Errorf("%s: %v", tc.InputPath, err)
			continue
		}
		if got != tc.HealthStatus {
			t.Errorf("%s: %+v, want %+v", tc.InputPath, got, tc.HealthStatus)
		}
		kind, _ := obj["kind"].(string)
		if seen[kind] == nil {
			seen[kind] = map[string]bool{}
		}
		seen[kind][got.Status] = true
	}
	for kind, want := range statuses {
		for _, s := range want {
			if !seen[kind][s] {
				t.Errorf("no %s test object is %s", kind, s)
			}
		}
	}
	files, _ := filepath.Glob(filepath.Join(group, "testdata", "*.yaml"))
	for _, f := range files {
		if !slices.ContainsFunc(tests.Tests, func(tc healthTest) bool { return filepath.Join(group, tc.InputPath) == f }) {
			t.Errorf("%s is in no test of health_test.yaml", f)
		}
	}
}

func readYAML(t *testing.T, path string, out any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := yaml.Unmarshal(b, out); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}
