package imagebuild

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/google/go-containerregistry/pkg/name"
	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
)

// RefNameAnnotation names an image in an OCI layout's index.json; tools
// such as skopeo select by it (oci-archive:FILE:REF).
const RefNameAnnotation = "org.opencontainers.image.ref.name"

// WriteOCILayout writes idx as an OCI image layout in dir (replacing
// whatever dir held) whose index.json holds one entry, idx itself, named by
// tag: what `crane push DIR REF` pushes as one multi-platform image.
func WriteOCILayout(dir string, idx v1.ImageIndex, tag string) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return err
	}
	if err := lp.AppendIndex(idx, layout.WithAnnotations(map[string]string{RefNameAnnotation: tag})); err != nil {
		return fmt.Errorf("write OCI layout: %w", err)
	}
	return nil
}

// WriteOCIArchive writes the OCI layout directory dir as a tar at path:
// what `skopeo copy --all oci-archive:FILE docker://REF` reads. The tar is
// reproducible: sorted entries, fixed modes, mtime as every time.
func WriteOCIArchive(path, dir string, mtime time.Time) error {
	return tarDir(path, dir, mtime)
}

// tarDir writes the regular files and directories under dir into a tar
// at path, sorted by name.
func tarDir(path, dir string, mtime time.Time) error {
	var names []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if d.IsDir() {
			rel += "/"
		}
		names = append(names, filepath.ToSlash(rel))
		return err
	})
	if err != nil {
		return err
	}
	sort.Strings(names)
	var files []file
	for _, n := range names {
		if n[len(n)-1] == '/' {
			files = append(files, file{name: n, mode: 0o755})
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			return err
		}
		files = append(files, file{name: n, mode: 0o644, data: data})
	}
	b, err := tarLayer(files, mtime)
	if err != nil {
		return err
	}
	return writeFileAtomic(path, b)
}

// WriteDockerTarball writes the image of platform p as a tarball that
// `docker load` reads, tagged tag.
func WriteDockerTarball(path string, idx v1.ImageIndex, p v1.Platform, tag string) error {
	img, err := PlatformImage(idx, p)
	if err != nil {
		return err
	}
	ref, err := name.NewTag(tag)
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := tarball.WriteToFile(tmp, ref, img); err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write docker tarball: %w", err)
	}
	return os.Rename(tmp, path)
}

// PlatformImage returns the image of platform p in idx.
func PlatformImage(idx v1.ImageIndex, p v1.Platform) (v1.Image, error) {
	m, err := idx.IndexManifest()
	if err != nil {
		return nil, err
	}
	for _, d := range m.Manifests {
		if d.Platform != nil && d.Platform.OS == p.OS && d.Platform.Architecture == p.Architecture {
			return idx.Image(d.Digest)
		}
	}
	return nil, fmt.Errorf("no image for %s/%s in the index", p.OS, p.Architecture)
}

// Digest is the index's digest: what a deployment pins.
func Digest(idx v1.ImageIndex) (v1.Hash, error) { return partial.Digest(idx) }

func writeFileAtomic(path string, data []byte) error {
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}
