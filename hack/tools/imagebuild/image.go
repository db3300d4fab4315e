package imagebuild

import (
	"context"
	"fmt"
	"os"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// Labels are the OCI annotations of the image: config labels of every
// platform's image and annotations of the index.
func (o Options) Labels() map[string]string {
	return map[string]string{
		"org.opencontainers.image.title":       "setpoint",
		"org.opencontainers.image.description": "Kubernetes operator for PostgreSQL on CloudNativePG",
		"org.opencontainers.image.source":      o.Source,
		"org.opencontainers.image.version":     o.Version,
		"org.opencontainers.image.revision":    o.Commit,
		"org.opencontainers.image.created":     o.Created.UTC().Format(time.RFC3339),
	}
}

// Build compiles the binary for every platform and returns the image
// index holding one image per platform.
func Build(ctx context.Context, o Options) (v1.ImageIndex, error) {
	if err := o.validate(); err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "setpoint-imagebuild-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)

	idx := mutate.IndexMediaType(empty.Index, types.OCIImageIndex)
	var adds []mutate.IndexAddendum
	for _, p := range o.Platforms {
		bin, err := buildBinary(ctx, o, p, dir)
		if err != nil {
			return nil, err
		}
		img, err := platformImage(o, p, bin)
		if err != nil {
			return nil, fmt.Errorf("image for %s/%s: %w", p.OS, p.Architecture, err)
		}
		adds = append(adds, mutate.IndexAddendum{
			Add:        img,
			Descriptor: v1.Descriptor{Platform: &v1.Platform{OS: p.OS, Architecture: p.Architecture, Variant: p.Variant}},
		})
	}
	idx = mutate.AppendManifests(idx, adds...)
	return mutate.Annotations(idx, o.Labels()).(v1.ImageIndex), nil
}

// platformImage is the image of one platform: one layer and a config
// that runs the binary as nonroot.
func platformImage(o Options, p v1.Platform, binary []byte) (v1.Image, error) {
	tarBytes, err := tarLayer(rootfs(binary), o.Created)
	if err != nil {
		return nil, err
	}
	layer, err := newLayer(tarBytes)
	if err != nil {
		return nil, err
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.ConfigFile(img, &v1.ConfigFile{
		OS:           p.OS,
		Architecture: p.Architecture,
		Variant:      p.Variant,
		Created:      v1.Time{Time: o.Created.UTC()},
		Config: v1.Config{
			User:       fmt.Sprintf("%d:%d", NonRoot, NonRoot),
			Entrypoint: []string{BinaryPath},
			WorkingDir: "/",
			Labels:     o.Labels(),
		},
		RootFS: v1.RootFS{Type: "layers"},
	})
	if err != nil {
		return nil, err
	}
	return mutate.Append(img, mutate.Addendum{
		Layer: layer,
		History: v1.History{
			Created:   v1.Time{Time: o.Created.UTC()},
			CreatedBy: "setpoint hack/tools/imagebuild: " + BinaryPath + " (" + o.Version + ")",
		},
	})
}
