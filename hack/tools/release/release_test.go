package release

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/layout"

	"github.com/setpoint-dev/setpoint/hack/tools/chart"
	"github.com/setpoint-dev/setpoint/hack/tools/imagebuild"
	"github.com/setpoint-dev/setpoint/hack/tools/internal/testsource"
)

// TestRelease makes a release of the committed source and checks what it
// ships: install.yaml pinned to the digest of the index in the OCI archive,
// every kind present, no :latest, and SHA256SUMS matching the files.
func TestRelease(t *testing.T) {
	o := imagebuild.Options{
		Root: testsource.Committed(t, "../../.."), Repository: "ghcr.io/setpoint-dev/setpoint",
		Version: "v0.0.0-test", Commit: "0123456789abcdef0123456789abcdef01234567",
		Created: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Source: "https://github.com/setpoint-dev/setpoint",
	}
	out := t.TempDir()
	res, err := Run(t.Context(), o, out)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"SHA256SUMS", "grafana-dashboard.json", "index.yaml", "install.yaml", "krew-setpoint.yaml",
		"kubectl-setpoint-v0.0.0-test-linux-amd64.tar.gz", "kubectl-setpoint-v0.0.0-test-linux-arm64.tar.gz",
		"prometheusrule.yaml", "setpoint-0.0.0-test.tgz", "setpoint-v0.0.0-test-linux-amd64.docker.tar",
		"setpoint-v0.0.0-test-linux-arm64.docker.tar", "setpoint-v0.0.0-test.oci", "setpoint-v0.0.0-test.oci.tar",
	}
	entries, _ := os.ReadDir(out)
	var got []string
	for _, e := range entries {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("release files %v, want %v", got, want)
	}

	digest := archiveDigest(t, filepath.Join(out, o.OCIArchiveName()))
	install, err := os.ReadFile(filepath.Join(out, InstallFile))
	if err != nil {
		t.Fatal(err)
	}
	pinned := Image{Repository: o.Repository, Tag: o.Version, Digest: digest}
	if res.Image != pinned {
		t.Errorf("release pinned %s, but the archive's index is %s", res.Image.Ref(), pinned.Ref())
	}
	if err := Check(install, pinned); err != nil {
		t.Error(err)
	}
	if !strings.Contains(string(install), "image: "+pinned.Ref()+"\n") {
		t.Errorf("install.yaml has no line image: %s", pinned.Ref())
	}
	checkChart(t, filepath.Join(out, "setpoint-0.0.0-test.tgz"), pinned)
	checkSums(t, out)
	checkKrew(t, o, out)
	checkKrewInstalls(t, o, out)
	checkPluginRuns(t, o, out)
}

// checkChart: the packaged chart runs the released image by default.
func checkChart(t *testing.T, path string, img Image) {
	t.Helper()
	c, err := chart.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := chart.Render(c, "setpoint", "setpoint-system", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		if chart.KeyOf(o) == "Deployment/setpoint-system/setpoint" && !strings.Contains(fmt.Sprint(o), "image:"+img.Ref()) {
			t.Errorf("the packaged chart's Deployment does not run %s", img.Ref())
		}
	}
}

// archiveDigest reads the image index digest from the OCI archive itself.
func archiveDigest(t *testing.T, path string) string {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("tar", "-x", "-f", path, "-C", dir).CombinedOutput(); err != nil {
		t.Fatalf("untar: %v\n%s", err, out)
	}
	idx, err := layout.ImageIndexFromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil || len(m.Manifests) != 1 {
		t.Fatalf("index.json: %v, %d entries", err, len(m.Manifests))
	}
	return m.Manifests[0].Digest.String()
}

// checkSums verifies SHA256SUMS the way a user would: sha256sum -c.
func checkSums(t *testing.T, dir string) {
	t.Helper()
	cmd := exec.Command("sha256sum", "-c", SumsFile)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("sha256sum -c: %v\n%s", err, out)
	}
	lines := 0
	for sc := bufio.NewScanner(strings.NewReader(string(out))); sc.Scan(); lines++ {
		if !strings.HasSuffix(sc.Text(), ": OK") {
			t.Errorf("sha256sum -c: %s", sc.Text())
		}
	}
	if lines != 11 {
		t.Errorf("SHA256SUMS checks %d files, want 11:\n%s", lines, out)
	}
}

func TestCheckRefusesLatestAndUnpinnedImages(t *testing.T) {
	img := Image{Repository: "ghcr.io/setpoint-dev/setpoint", Tag: "v0.2.0", Digest: "sha256:" + strings.Repeat("a", 64)}
	deployment := func(image string) string {
		return `apiVersion: apps/v1
kind: Deployment
metadata: {name: setpoint, namespace: setpoint-system}
spec:
  template:
    spec:
      containers:
      - name: setpoint
        image: ` + image + "\n"
	}
	if err := Check([]byte(deployment("ghcr.io/setpoint-dev/setpoint:latest")), img); err == nil || !strings.Contains(err.Error(), ":latest") {
		t.Errorf("Check accepted :latest (err %v)", err)
	}
	err := Check([]byte(deployment("ghcr.io/setpoint-dev/setpoint:v0.2.0")), img)
	if err == nil || !strings.Contains(err.Error(), "want \""+img.Ref()+"\"") {
		t.Errorf("Check accepted an image without digest (err %v)", err)
	}
	if err == nil || !strings.Contains(err.Error(), "no CustomResourceDefinition") {
		t.Errorf("Check did not miss the CRDs (err %v)", err)
	}
}
