package realcnpg

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/rest"

	"github.com/setpoint-dev/setpoint/test/envtest"
	"github.com/setpoint-dev/setpoint/test/node"
)

// ImageCatalog is the ClusterImageCatalog the harness installs: the
// node's PostgreSQL image of each major, by its exact tag (15.N, 17.N).
// A Cluster that names it in imageCatalogRef with a major runs that
// image; a major upgrade raises the major.
const ImageCatalog = "postgresql"

// PostgresImages are the node's PostgreSQL images (images.json's names)
// by major, as the catalog serves them.
var PostgresImages = map[int]string{15: "postgresql", 17: "postgresql-17"}

// InstallImageCatalog applies ImageCatalog with every major of
// PostgresImages; CNPG's CRDs must be installed (InstallCNPG).
func InstallImageCatalog(ctx context.Context, cfg *rest.Config, images node.Images) error {
	obj, err := imageCatalog(images)
	if err != nil {
		return err
	}
	if _, err := envtest.ApplyObjects(ctx, cfg, "setpoint-test", []*unstructured.Unstructured{obj}); err != nil {
		return fmt.Errorf("install the image catalog: %w", err)
	}
	return nil
}

// imageCatalog refuses an image whose tag does not start with its major:
// CNPG reads the major from the tag.
func imageCatalog(images node.Images) (*unstructured.Unstructured, error) {
	var entries []any
	for _, major := range slices.Sorted(maps.Keys(PostgresImages)) {
		name := PostgresImages[major]
		im, ok := images[name]
		if !ok {
			return nil, fmt.Errorf("image catalog: no image %s for PostgreSQL %d (run `make node-images`)", name, major)
		}
		if _, tag, _ := strings.Cut(im.Ref, ":"); !strings.HasPrefix(tag, strconv.Itoa(major)+".") {
			return nil, fmt.Errorf("image catalog: image %s is %s, not PostgreSQL %d", name, im.Ref, major)
		}
		entries = append(entries, map[string]any{"major": int64(major), "image": im.Ref})
	}
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "postgresql.cnpg.io/v1",
		"kind":       "ClusterImageCatalog",
		"metadata":   map[string]any{"name": ImageCatalog},
		"spec":       map[string]any{"images": entries},
	}}, nil
}
