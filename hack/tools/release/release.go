package release

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/setpoint-dev/setpoint/hack/tools/chart"
	"github.com/setpoint-dev/setpoint/hack/tools/imagebuild"
)

// InstallFile is the rendered install manifest.
const InstallFile = "install.yaml"

// Result is what a release wrote.
type Result struct {
	Image Image
	Files []string // in the output directory, SHA256SUMS last
}

// Run builds the image, writes its archives (a docker tarball for each
// platform), renders install.yaml pinned to the image index's digest,
// checks it, packages the Helm chart pinned to the same image with its
// repository index, writes the alerting rules and the Grafana dashboard,
// builds the kubectl plugin's archives and their krew
// manifest, and writes SHA256SUMS, all into out.
func Run(ctx context.Context, o imagebuild.Options, out string) (Result, error) {
	idx, err := imagebuild.Build(ctx, o)
	if err != nil {
		return Result{}, err
	}
	if err := os.MkdirAll(out, 0o755); err != nil {
		return Result{}, err
	}
	files, err := imagebuild.WriteArtifacts(out, o, idx, imagebuild.DefaultPlatforms)
	if err != nil {
		return Result{}, err
	}
	digest, err := imagebuild.Digest(idx)
	if err != nil {
		return Result{}, err
	}
	img := Image{Repository: o.Repository, Tag: o.Version, Digest: digest.String()}
	install, err := Render(filepath.Join(o.Root, "manifests"), img)
	if err != nil {
		return Result{}, err
	}
	if err := Check(install, img); err != nil {
		return Result{}, fmt.Errorf("rendered install.yaml: %w", err)
	}
	if err := os.WriteFile(filepath.Join(out, InstallFile), install, 0o644); err != nil {
		return Result{}, err
	}
	files = append(files, InstallFile)
	charts, err := packageChart(o, img, out)
	if err != nil {
		return Result{}, err
	}
	files = append(files, charts...)
	monitoring, err := WriteMonitoring(o.Root, out)
	if err != nil {
		return Result{}, err
	}
	files = append(files, monitoring...)
	plugin, err := WritePlugin(ctx, o, out)
	if err != nil {
		return Result{}, err
	}
	if err := WriteKrewManifest(o, out); err != nil {
		return Result{}, err
	}
	files = append(append(files, plugin...), KrewFile)
	if err := WriteSums(out, files); err != nil {
		return Result{}, err
	}
	return Result{Image: img, Files: append(files, SumsFile)}, nil
}

// packageChart writes charts/setpoint as a .tgz pinned to img, and the
// index.yaml that makes out a Helm chart repository.
func packageChart(o imagebuild.Options, img Image, out string) ([]string, error) {
	r := chart.Release{Version: o.Version, Repository: img.Repository, Digest: img.Digest, Created: o.Created}
	file, err := chart.Package(filepath.Join(o.Root, "charts", "setpoint"), out, r)
	if err != nil {
		return nil, err
	}
	if err := chart.Index(out, file, o.Created); err != nil {
		return nil, err
	}
	return []string{file, chart.IndexFile}, nil
}
