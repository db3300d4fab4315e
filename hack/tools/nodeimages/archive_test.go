package nodeimages

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// unpacked is an OCI archive read back as the importer sees it.
type unpacked struct {
	annotations map[string]string // of index.json's only entry
	digest      v1.Hash           // the manifest's
	config      *v1.ConfigFile
	files       map[string]*tar.Header // the layer's entries by absolute path
	data        map[string][]byte      // regular files' content, those under 8 MiB
}

// readArchive untars the archive (in Go: the test needs no tar binary),
// opens it as an OCI layout and walks its single layer.
func readArchive(t *testing.T, path string) unpacked {
	t.Helper()
	dir := t.TempDir()
	if err := untar(path, dir); err != nil {
		t.Fatalf("untar %s: %v", path, err)
	}
	lp, err := layout.FromPath(dir)
	if err != nil {
		t.Fatal(err)
	}
	idx, err := lp.ImageIndex()
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].MediaType != types.OCIManifestSchema1 {
		t.Fatalf("index.json holds %d entries (%v), want one OCI image manifest", len(m.Manifests), m.Manifests)
	}
	d := m.Manifests[0]
	if d.Platform == nil || d.Platform.OS != "linux" || d.Platform.Architecture != "amd64" {
		t.Errorf("platform %v, want linux/amd64", d.Platform)
	}
	img, err := idx.Image(d.Digest)
	if err != nil {
		t.Fatal(err)
	}
	u := unpacked{annotations: d.Annotations, digest: d.Digest}
	if u.config, err = img.ConfigFile(); err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil {
		t.Fatal(err)
	}
	if len(layers) != 1 {
		t.Fatalf("%d layers, want 1", len(layers))
	}
	u.files, u.data = walkLayer(t, layers[0])
	return u
}

func walkLayer(t *testing.T, l v1.Layer) (map[string]*tar.Header, map[string][]byte) {
	t.Helper()
	rc, err := l.Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	files, data := map[string]*tar.Header{}, map[string][]byte{}
	tr := tar.NewReader(rc)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return files, data
		}
		if err != nil {
			t.Fatal(err)
		}
		p := clean(hdr.Name)
		if _, dup := files[p]; dup {
			t.Errorf("%s appears twice in the layer", p)
		}
		files[p] = hdr
		if hdr.Typeflag == tar.TypeReg && hdr.Size < 8<<20 {
			if data[p], err = io.ReadAll(tr); err != nil {
				t.Fatal(err)
			}
		}
		if !hdr.ModTime.Equal(epoch) {
			t.Errorf("%s: mtime %s, want %s", p, hdr.ModTime, epoch)
		}
	}
}

func untar(path, dir string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	tr := tar.NewReader(f)
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return err
		}
		p := filepath.Join(dir, filepath.FromSlash(hdr.Name))
		if hdr.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				return err
			}
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			return err
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			return err
		}
	}
}
