package release

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"os"
	"path/filepath"

	v1 "github.com/google/go-containerregistry/pkg/v1"

	"github.com/setpoint-dev/setpoint/hack/tools/imagebuild"
)

// PluginBinary is the kubectl plugin's executable, as kubectl finds it.
const PluginBinary = "kubectl-setpoint"

// PluginArchiveName is the plugin's archive for one platform; krew
// installs from it.
func PluginArchiveName(o imagebuild.Options, p v1.Platform) string {
	return fmt.Sprintf("%s-%s-%s-%s.tar.gz", PluginBinary, o.Version, p.OS, p.Architecture)
}

// WritePlugin builds cmd/kubectl-setpoint for every platform of o and
// writes each as a .tar.gz into out. The archives are reproducible like
// the image: fixed modes and owners, the commit time as every timestamp.
func WritePlugin(ctx context.Context, o imagebuild.Options, out string) ([]string, error) {
	tmp, err := os.MkdirTemp("", "kubectl-setpoint-build-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	var files []string
	for _, p := range platformsOf(o) {
		bin, err := imagebuild.BuildCommand(ctx, o, p, tmp, PluginBinary)
		if err != nil {
			return nil, err
		}
		archive, err := pluginArchive(bin, o)
		if err != nil {
			return nil, fmt.Errorf("plugin archive for %s/%s: %w", p.OS, p.Architecture, err)
		}
		name := PluginArchiveName(o, p)
		if err := os.WriteFile(filepath.Join(out, name), archive, 0o644); err != nil {
			return nil, err
		}
		files = append(files, name)
	}
	return files, nil
}

func platformsOf(o imagebuild.Options) []v1.Platform {
	if len(o.Platforms) > 0 {
		return o.Platforms
	}
	return imagebuild.DefaultPlatforms
}

// pluginArchive is a gzipped tar holding the binary alone.
func pluginArchive(bin []byte, o imagebuild.Options) ([]byte, error) {
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	gz.ModTime = o.Created.UTC()
	tw := tar.NewWriter(gz)
	hdr := &tar.Header{Name: PluginBinary, Mode: 0o755, Size: int64(len(bin)), ModTime: o.Created.UTC(),
		Typeflag: tar.TypeReg, Format: tar.FormatPAX, Uname: "root", Gname: "root"}
	if err := tw.WriteHeader(hdr); err != nil {
		return nil, err
	}
	if _, err := tw.Write(bin); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	if err := gz.Close(); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
