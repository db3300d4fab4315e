package release

import (
	"fmt"
	"io/fs"
	"os"
	"path"

	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/api/types"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"
)

// ManifestImage is the image name manifests/manager/deployment.yaml uses,
// with a placeholder tag that every release overrides.
const ManifestImage = "ghcr.io/setpoint-dev/setpoint"

// Image is what the release pins the operator's image to.
type Image struct {
	Repository string // image name without tag
	Tag        string
	Digest     string // sha256:…, the image index's digest
}

// Ref is the reference install.yaml carries: repository:tag@digest.
func (i Image) Ref() string { return i.Repository + ":" + i.Tag + "@" + i.Digest }

// Render builds the kustomization in manifestsDir (what `kubectl apply -k`
// installs) through an overlay that sets the image, as `kustomize edit set
// image` would, and returns the multi-document YAML.
func Render(manifestsDir string, img Image) ([]byte, error) {
	fsys := filesys.MakeFsInMemory()
	if err := copyTree(os.DirFS(manifestsDir), fsys, "/manifests"); err != nil {
		return nil, fmt.Errorf("read %s: %w", manifestsDir, err)
	}
	overlay, err := yaml.Marshal(types.Kustomization{
		TypeMeta:  types.TypeMeta{APIVersion: types.KustomizationVersion, Kind: types.KustomizationKind},
		Resources: []string{"../manifests"},
		Images:    []types.Image{{Name: ManifestImage, NewName: img.Repository, NewTag: img.Tag, Digest: img.Digest}},
	})
	if err != nil {
		return nil, err
	}
	if err := fsys.MkdirAll("/release"); err != nil {
		return nil, err
	}
	if err := fsys.WriteFile("/release/kustomization.yaml", overlay); err != nil {
		return nil, err
	}
	resources, err := krusty.MakeKustomizer(krusty.MakeDefaultOptions()).Run(fsys, "/release")
	if err != nil {
		return nil, fmt.Errorf("kustomize build: %w", err)
	}
	return resources.AsYaml()
}

// copyTree copies the files of src into dst under dir.
func copyTree(src fs.FS, dst filesys.FileSystem, dir string) error {
	return fs.WalkDir(src, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		target := path.Join(dir, p)
		if d.IsDir() {
			return dst.MkdirAll(target)
		}
		data, err := fs.ReadFile(src, p)
		if err != nil {
			return err
		}
		return dst.WriteFile(target, data)
	})
}
