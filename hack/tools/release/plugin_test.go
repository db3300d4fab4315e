package release

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/hack/tools/imagebuild"
)

// checkKrew reads the krew manifest as krew would: one platform per
// archive, each URL on the release page, each sha256 the archive's.
func checkKrew(t *testing.T, o imagebuild.Options, dir string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, KrewFile))
	if err != nil {
		t.Fatal(err)
	}
	var m krewPlugin
	if err := yaml.UnmarshalStrict(b, &m); err != nil {
		t.Fatalf("krew manifest: %v\n%s", err, b)
	}
	if m.Kind != "Plugin" || m.Metadata["name"] != "setpoint" || m.Spec.Version != o.Version || len(m.Spec.Platforms) != 2 {
		t.Fatalf("krew manifest:\n%s", b)
	}
	for i, p := range imagebuild.DefaultPlatforms {
		got := m.Spec.Platforms[i]
		name := PluginArchiveName(o, p)
		sum, err := fileSHA256(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		wantURI := o.Source + "/releases/download/" + o.Version + "/" + name
		if got.URI != wantURI || got.SHA256 != sum || got.Bin != PluginBinary || got.Selector["matchLabels"]["arch"] != p.Architecture {
			t.Errorf("platform %s/%s: %+v, want uri %s sha256 %s", p.OS, p.Architecture, got, wantURI, sum)
		}
	}
}

// checkPluginRuns unpacks the host's archive and runs the plugin.
func checkPluginRuns(t *testing.T, o imagebuild.Options, dir string) {
	t.Helper()
	host := v1.Platform{OS: "linux", Architecture: runtime.GOARCH}
	unpacked := t.TempDir()
	if out, err := exec.Command("tar", "-xzf", filepath.Join(dir, PluginArchiveName(o, host)), "-C", unpacked).CombinedOutput(); err != nil {
		t.Fatalf("untar plugin: %v\n%s", err, out)
	}
	entries, _ := os.ReadDir(unpacked)
	if len(entries) != 1 || entries[0].Name() != PluginBinary {
		t.Fatalf("plugin archive holds %v, want %s alone", entries, PluginBinary)
	}
	out, err := exec.Command(filepath.Join(unpacked, PluginBinary), "--help").CombinedOutput()
	if err != nil || !strings.Contains(string(out), "explain") {
		t.Fatalf("kubectl-setpoint --help: %v\n%s", err, out)
	}
}

// Two builds of one commit give byte-identical plugin archives.
func TestPluginArchiveReproducible(t *testing.T) {
	o := imagebuild.Options{Version: "v0.0.0-test"}
	a, err := pluginArchive([]byte("binary"), o)
	if err != nil {
		t.Fatal(err)
	}
	b, err := pluginArchive([]byte("binary"), o)
	if err != nil || string(a) != string(b) {
		t.Fatalf("archives differ (%v)", err)
	}
}
