package node

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Image is one locally built image: an OCI archive and the reference it
// is known by once imported. There is no registry: Pods name these
// references with imagePullPolicy IfNotPresent (or Never).
type Image struct {
	Name    string `json:"name"`
	Ref     string `json:"reference"`
	Archive string `json:"archive"`
	Digest  string `json:"digest"`
}

// Images are the images of `make node-images`, by name (pause, cnpg,
// postgresql, pgbouncer, coredns, …).
type Images map[string]Image

// LoadImages reads the images.json `make node-images` writes; relative
// archive paths are taken from the file's directory.
func LoadImages(path string) (Images, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("images: %w (run `make node-images`)", err)
	}
	var file struct {
		Images []Image `json:"images"`
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, fmt.Errorf("images: %s: %w", path, err)
	}
	out := Images{}
	for _, im := range file.Images {
		if !filepath.IsAbs(im.Archive) {
			im.Archive = filepath.Join(filepath.Dir(path), im.Archive)
		}
		out[im.Name] = im
	}
	return out, nil
}

// Ref is the reference of the image called name; it panics on a name
// LoadImages did not read, which is a harness bug.
func (im Images) Ref(name string) string {
	i, ok := im[name]
	if !ok {
		panic("node: no image " + name)
	}
	return i.Ref
}

// importImages loads every archive into containerd's Kubernetes
// namespace, unpacked for the overlayfs snapshotter, and checks that each
// reference is known afterwards with the digest images.json says.
func (n *Node) importImages(images Images) error {
	for _, im := range images {
		if _, err := n.containerd.ctr("images", "import", "--snapshotter", "overlayfs", im.Archive); err != nil {
			return fmt.Errorf("import image %s: %w", im.Name, err)
		}
	}
	targets, err := n.containerd.imageTargets()
	if err != nil {
		return err
	}
	for _, im := range images {
		target, ok := targets[im.Ref]
		switch {
		case !ok:
			return fmt.Errorf("image %s imported, but containerd does not know %s", im.Name, im.Ref)
		case im.Digest == "":
		case target != im.Digest:
			return fmt.Errorf("image %s: containerd has %s at %s, images.json says %s", im.Name, im.Ref, target, im.Digest)
		default:
			// A manifest that pins repository:tag@digest (install.yaml
			// does) is looked up by repository@digest, a name an import
			// does not create.
			if _, err := n.containerd.ctr("images", "tag", "--force", im.Ref, digestRef(im.Ref, im.Digest)); err != nil {
				return err
			}
		}
	}
	return nil
}

// digestRef is ref's repository with digest instead of its tag.
func digestRef(ref, digest string) string {
	repo := ref
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		repo = ref[:i]
	}
	return repo + "@" + digest
}
