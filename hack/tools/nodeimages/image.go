package nodeimages

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"io"
	"os"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/partial"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"

	"github.com/setpoint-dev/setpoint/hack/tools/imagebuild"
)

// containerdNameAnnotation is where, in the archive's index.json entry,
// containerd's importer takes the image's full name; OCI tools take the
// tag from imagebuild.RefNameAnnotation beside it.
const containerdNameAnnotation = "io.containerd.image.name"

// config is what an image's config file says about running it.
type config struct {
	User       string
	Env        []string
	Entrypoint []string
	Cmd        []string
	WorkingDir string
}

// image assembles the one-layer linux/amd64 image of the tree.
func image(r *rootFS, c config, labels map[string]string) (v1.Image, error) {
	tarBytes, err := r.tarball()
	if err != nil {
		return nil, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(tarBytes)), nil
	}, tarball.WithMediaType(types.OCILayer), tarball.WithCompressionLevel(gzip.BestSpeed),
		tarball.WithCompressedCaching)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{
		OS: "linux", Architecture: "amd64",
		Created: v1.Time{Time: epoch},
		Config: v1.Config{
			User: c.User, Env: c.Env, Entrypoint: c.Entrypoint, Cmd: c.Cmd,
			WorkingDir: c.WorkingDir, Labels: labels,
		},
		RootFS: v1.RootFS{Type: "layers"},
	})
	if err != nil {
		return nil, err
	}
	return mutate.Append(img, mutate.Addendum{
		Layer:   layer,
		History: v1.History{Created: v1.Time{Time: epoch}, CreatedBy: "setpoint hack/tools/nodeimages"},
	})
}

// writeArchive writes img as an OCI image-layout tar at path, named ref
// (repository:tag), and returns the manifest's digest.
func writeArchive(path string, img v1.Image, ref string, tag string) (v1.Hash, error) {
	dir, err := os.MkdirTemp(filepath.Dir(path), ".layout-")
	if err != nil {
		return v1.Hash{}, err
	}
	defer os.RemoveAll(dir)
	lp, err := layout.Write(dir, empty.Index)
	if err != nil {
		return v1.Hash{}, err
	}
	err = lp.AppendImage(img,
		layout.WithPlatform(v1.Platform{OS: "linux", Architecture: "amd64"}),
		layout.WithAnnotations(map[string]string{containerdNameAnnotation: ref, imagebuild.RefNameAnnotation: tag}))
	if err != nil {
		return v1.Hash{}, fmt.Errorf("write OCI layout: %w", err)
	}
	if err := imagebuild.WriteOCIArchive(path, dir, epoch); err != nil {
		return v1.Hash{}, fmt.Errorf("write OCI archive: %w", err)
	}
	return partial.Digest(img)
}
