package node

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Image is one locally built image: an OCI archive and the reference it
// is known by once imported. There is no registry: Pods name these
// references with imagePullPolicy IfNotPresent (or Never).
type Image struct {
	Name    string `json:"name"`
	Ref     string `json:"ref"`
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
	var list []Image
	if err := json.Unmarshal(data, &list); err != nil {
		return nil, fmt.Errorf("images: %s: %w", path, err)
	}
	out := Images{}
	for _, im := range list {
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
// reference is known afterwards.
func (n *Node) importImages(images Images) error {
	for _, im := range images {
		if _, err := n.containerd.ctr("images", "import", "--snapshotter", "overlayfs", im.Archive); err != nil {
			return fmt.Errorf("import image %s: %w", im.Name, err)
		}
	}
	out, err := n.containerd.ctr("images", "list", "--quiet")
	if err != nil {
		return err
	}
	known := strings.Fields(out)
	for _, im := range images {
		if !slices.Contains(known, im.Ref) {
			return fmt.Errorf("image %s imported, but containerd does not know %s (it has %v)", im.Name, im.Ref, known)
		}
	}
	return nil
}
