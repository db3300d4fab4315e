package release

import (
	"archive/tar"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"sigs.k8s.io/yaml"

	"github.com/setpoint-dev/setpoint/hack/tools/imagebuild"
)

// krewInstall does for one platform what `kubectl krew install
// --manifest=krew-setpoint.yaml` does with the release's files: pick the
// platform by its selector, fetch the archive the uri names (from dir,
// where the release page's files are), check its sha256, unpack it
// (every file: the manifest lists no `files`), and find `bin` in it,
// executable. It returns the path of the installed binary.
func krewInstall(dir, into string, p v1.Platform) (string, error) {
	b, err := os.ReadFile(filepath.Join(dir, KrewFile))
	if err != nil {
		return "", err
	}
	var m krewPlugin
	if err := yaml.UnmarshalStrict(b, &m); err != nil {
		return "", fmt.Errorf("krew manifest: %w", err)
	}
	for _, pl := range m.Spec.Platforms {
		l := pl.Selector["matchLabels"]
		if l["os"] != p.OS || l["arch"] != p.Architecture {
			continue
		}
		archive := filepath.Join(dir, path.Base(pl.URI))
		sum, err := fileSHA256(archive)
		if err != nil {
			return "", fmt.Errorf("the uri's archive %s is not in the release: %w", path.Base(pl.URI), err)
		}
		if sum != pl.SHA256 {
			return "", fmt.Errorf("%s: sha256 %s, the manifest says %s", archive, sum, pl.SHA256)
		}
		if err := untar(archive, into); err != nil {
			return "", err
		}
		bin := filepath.Join(into, filepath.FromSlash(pl.Bin))
		st, err := os.Stat(bin)
		if err != nil {
			return "", fmt.Errorf("bin %s is not in the archive: %w", pl.Bin, err)
		}
		if !st.Mode().IsRegular() || st.Mode().Perm()&0o111 == 0 {
			return "", fmt.Errorf("bin %s is not an executable file (%s)", pl.Bin, st.Mode())
		}
		return bin, nil
	}
	return "", fmt.Errorf("no platform of the manifest matches %s/%s", p.OS, p.Architecture)
}

// untar unpacks a .tar.gz into dir, refusing a path that leaves it.
func untar(archive, dir string) error {
	f, err := os.Open(archive)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return fmt.Errorf("%s: %w", archive, err)
	}
	tr := tar.NewReader(gz)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", archive, err)
		}
		name := filepath.Clean(hdr.Name)
		if filepath.IsAbs(name) || strings.HasPrefix(name, "..") {
			return fmt.Errorf("%s: entry %s leaves the install directory", archive, hdr.Name)
		}
		if hdr.Typeflag != tar.TypeReg {
			continue
		}
		out, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, os.FileMode(hdr.Mode).Perm())
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, tr); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
}

// checkKrewInstalls installs the plugin for every platform of the
// release as krew would, from the release's own files.
func checkKrewInstalls(t *testing.T, o imagebuild.Options, dir string) {
	t.Helper()
	for _, p := range platformsOf(o) {
		if _, err := krewInstall(dir, t.TempDir(), p); err != nil {
			t.Errorf("krew install on %s/%s: %v", p.OS, p.Architecture, err)
		}
	}
}

// The manifest WriteKrewManifest writes installs, on each platform, the
// archive WritePlugin writes for it: the uri's file, its sha256, the bin
// inside it. A platform without an archive is no release.
func TestKrewManifestInstallsFromTheArchives(t *testing.T) {
	o := imagebuild.Options{Version: "v0.0.0-test", Source: "https://github.com/setpoint-dev/setpoint",
		Created: time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)}
	dir := t.TempDir()
	for _, p := range platformsOf(o) {
		archive, err := pluginArchive([]byte("#!/bin/sh\necho "+p.Architecture+"\n"), o)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, PluginArchiveName(o, p)), archive, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := WriteKrewManifest(o, dir); err != nil {
		t.Fatal(err)
	}
	checkKrewInstalls(t, o, dir)
	bin, err := krewInstall(dir, t.TempDir(), v1.Platform{OS: "linux", Architecture: "arm64"})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(bin); !strings.Contains(string(b), "echo arm64") {
		t.Fatalf("the arm64 install holds %q", b)
	}
	// An archive changed after the manifest was written is refused.
	amd := filepath.Join(dir, PluginArchiveName(o, v1.Platform{OS: "linux", Architecture: "amd64"}))
	if err := os.WriteFile(amd, []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := krewInstall(dir, t.TempDir(), v1.Platform{OS: "linux", Architecture: "amd64"}); err == nil || !strings.Contains(err.Error(), "sha256") {
		t.Fatalf("a changed archive: %v, want a sha256 mismatch", err)
	}
}
