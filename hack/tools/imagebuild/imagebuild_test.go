package imagebuild

import (
	"archive/tar"
	"bytes"
	"debug/elf"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/setpoint-dev/setpoint/hack/tools/internal/testsource"
)

var testCreated = time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)

func testOptions(root string) Options {
	return Options{
		Root: root, Repository: "ghcr.io/setpoint-dev/setpoint", Version: "v0.0.0-test",
		Commit: "0123456789abcdef0123456789abcdef01234567", Created: testCreated,
		Source: "https://github.com/setpoint-dev/setpoint",
	}
}

var host = v1.Platform{OS: "linux", Architecture: runtime.GOARCH}

// buildInto builds the image and writes its artifacts into a new dir.
func buildInto(t *testing.T, o Options) (v1.ImageIndex, string) {
	t.Helper()
	idx, err := Build(t.Context(), o)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if _, err := WriteArtifacts(dir, o, idx, []v1.Platform{host}); err != nil {
		t.Fatal(err)
	}
	return idx, dir
}

func TestImage(t *testing.T) {
	o := testOptions(testsource.Committed(t, "../../.."))
	idx, dir := buildInto(t, o)
	digest, err := Digest(idx)
	if err != nil {
		t.Fatal(err)
	}

	t.Run("reproducible", func(t *testing.T) {
		// Built again from another copy of the commit, as from another clone.
		again := o
		again.Root = testsource.Committed(t, "../../..")
		idx2, dir2 := buildInto(t, again)
		if d2, _ := Digest(idx2); d2 != digest {
			t.Errorf("second build's index digest %s, first %s", d2, digest)
		}
		for _, n := range []string{o.OCIArchiveName(), o.DockerTarballName(host)} {
			a, _ := os.ReadFile(filepath.Join(dir, n))
			b, _ := os.ReadFile(filepath.Join(dir2, n))
			if len(a) == 0 || !bytes.Equal(a, b) {
				t.Errorf("%s differs between two builds (%d and %d bytes)", n, len(a), len(b))
			}
		}
	})

	t.Run("OCI archive", func(t *testing.T) {
		nested := readOCIArchive(t, filepath.Join(dir, o.OCIArchiveName()), o.Tag(), digest)
		checkIndex(t, o, nested)
	})

	t.Run("OCI layout directory", func(t *testing.T) {
		readOCILayout(t, filepath.Join(dir, o.OCILayoutName()), o.Tag(), digest)
	})

	t.Run("docker tarball", func(t *testing.T) {
		tag, err := name.NewTag(o.Tag())
		if err != nil {
			t.Fatal(err)
		}
		loaded, err := tarball.ImageFromPath(filepath.Join(dir, o.DockerTarballName(host)), &tag)
		if err != nil {
			t.Fatalf("read docker tarball as %s: %v", tag, err)
		}
		want, err := PlatformImage(idx, host)
		if err != nil {
			t.Fatal(err)
		}
		gotCfg, _ := loaded.ConfigName()
		wantCfg, _ := want.ConfigName()
		if gotCfg != wantCfg {
			t.Errorf("docker tarball's config %s, want the %s image's %s", gotCfg, host.Architecture, wantCfg)
		}
	})
}

// readOCIArchive unpacks the archive and reads it as an OCI layout.
func readOCIArchive(t *testing.T, path, tag string, digest v1.Hash) v1.ImageIndex {
	t.Helper()
	dir := t.TempDir()
	if out, err := exec.Command("tar", "-x", "-f", path, "-C", dir).CombinedOutput(); err != nil {
		t.Fatalf("untar %s: %v\n%s", path, err, out)
	}
	return readOCILayout(t, dir, tag, digest)
}

// readOCILayout reads dir as `crane push DIR` does (one entry, an index,
// pushed whole) and returns that image index after checking its name and
// digest.
func readOCILayout(t *testing.T, dir, tag string, digest v1.Hash) v1.ImageIndex {
	t.Helper()
	lp, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	top, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := top.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 {
		t.Fatalf("index.json has %d entries, want 1 (the multi-platform index)", len(m.Manifests))
	}
	d := m.Manifests[0]
	if d.MediaType != types.OCIImageIndex || d.Digest != digest || d.Annotations[RefNameAnnotation] != tag {
		t.Errorf("index.json entry = %s %s %v, want %s %s named %s", d.MediaType, d.Digest, d.Annotations, types.OCIImageIndex, digest, tag)
	}
	nested, err := top.ImageIndex(d.Digest)
	if err != nil {
		t.Fatal(err)
	}
	return nested
}

// checkIndex checks both platforms' images in idx.
func checkIndex(t *testing.T, o Options, idx v1.ImageIndex) {
	t.Helper()
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range o.Labels() {
		if m.Annotations[k] != v {
			t.Errorf("index annotation %s = %q, want %q", k, m.Annotations[k], v)
		}
	}
	var platforms []string
	for _, d := range m.Manifests {
		platforms = append(platforms, d.Platform.OS+"/"+d.Platform.Architecture)
		img, err := idx.Image(d.Digest)
		if err != nil {
			t.Fatal(err)
		}
		t.Run(d.Platform.Architecture, func(t *testing.T) { checkImage(t, o, *d.Platform, img) })
	}
	sort.Strings(platforms)
	if strings.Join(platforms, ",") != "linux/amd64,linux/arm64" {
		t.Errorf("platforms = %v, want linux/amd64 and linux/arm64", platforms)
	}
}

func checkImage(t *testing.T, o Options, p v1.Platform, img v1.Image) {
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	if cf.OS != p.OS || cf.Architecture != p.Architecture {
		t.Errorf("config platform %s/%s, want %s/%s", cf.OS, cf.Architecture, p.OS, p.Architecture)
	}
	if cf.Config.User != "65532:65532" {
		t.Errorf("user %q, want 65532:65532", cf.Config.User)
	}
	if len(cf.Config.Entrypoint) != 1 || cf.Config.Entrypoint[0] != BinaryPath || len(cf.Config.Cmd) != 0 {
		t.Errorf("entrypoint %q cmd %q, want [%s] and no cmd", cf.Config.Entrypoint, cf.Config.Cmd, BinaryPath)
	}
	if !cf.Created.Time.Equal(testCreated) {
		t.Errorf("created %s, want the commit time %s", cf.Created.Time, testCreated)
	}
	want := map[string]string{
		"org.opencontainers.image.source":   o.Source,
		"org.opencontainers.image.version":  o.Version,
		"org.opencontainers.image.revision": o.Commit,
		"org.opencontainers.image.created":  "2026-11-30T12:00:00Z",
	}
	for k, v := range want {
		if cf.Config.Labels[k] != v {
			t.Errorf("label %s = %q, want %q", k, cf.Config.Labels[k], v)
		}
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 {
		t.Fatalf("%d layers, want 1", len(layers))
	}
	if mt, _ := layers[0].MediaType(); mt != types.OCILayer {
		t.Errorf("layer media type %s, want %s", mt, types.OCILayer)
	}
	checkLayer(t, p, layers[0])
}

// checkLayer checks the layer's entries (no shell, root-owned, fixed
// modes and times) and that the binary is a static ELF for p.
func checkLayer(t *testing.T, p v1.Platform, l v1.Layer) {
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	tr := tar.NewReader(rc)
	var names []string
	var binary []byte
	for {
		hdr, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, hdr.Name)
		if hdr.Uid != 0 || hdr.Gid != 0 || !hdr.ModTime.Equal(testCreated) {
			t.Errorf("%s: uid %d gid %d mtime %s, want root and the commit time", hdr.Name, hdr.Uid, hdr.Gid, hdr.ModTime)
		}
		if hdr.Name == BinaryPath[1:] {
			if hdr.Mode != 0o755 {
				t.Errorf("binary mode %o, want 755", hdr.Mode)
			}
			if binary, err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
	}
	wantNames := "etc/,etc/group,etc/passwd,usr/,usr/local/,usr/local/bin/,usr/local/bin/setpoint"
	if got := strings.Join(names, ","); got != wantNames {
		t.Errorf("layer entries %s, want %s (sorted, no shell)", got, wantNames)
	}
	f, err := elf.NewFile(bytes.NewReader(binary))
	if err != nil {
		t.Fatalf("binary is not ELF: %v", err)
	}
	machine := map[string]elf.Machine{"amd64": elf.EM_X86_64, "arm64": elf.EM_AARCH64}[p.Architecture]
	if f.Machine != machine {
		t.Errorf("binary machine %s, want %s", f.Machine, machine)
	}
	for _, prog := range f.Progs {
		if prog.Type == elf.PT_INTERP || prog.Type == elf.PT_DYNAMIC {
			t.Errorf("binary is dynamically linked (%s)", prog.Type)
		}
	}
}
