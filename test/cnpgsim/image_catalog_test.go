package cnpgsim

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
	"k8s.io/utils/ptr"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// The image of a Cluster, or CNPG 1.30's reason for having none, word for
// word (internal/controller/cluster_image.go, pkg/utils/imagecatalog).
func TestRequestedImageAsCNPG(t *testing.T) {
	catalog := func(ns, name string, images ...any) *unstructured.Unstructured {
		u := &unstructured.Unstructured{Object: map[string]any{"spec": map[string]any{"images": images}}}
		u.SetNamespace(ns)
		u.SetName(name)
		return u
	}
	image := func(major int64, ref string) any { return map[string]any{"major": major, "image": ref} }
	listers := map[string]cache.GenericLister{}
	for kind, objs := range map[string][]*unstructured.Unstructured{
		"ClusterImageCatalog": {catalog("", "postgresql", image(16, "reg/pg:16.6"), image(17, "reg/pg:17.2"))},
		"ImageCatalog":        {catalog("team", "own", image(16, "team/pg:16.5"))},
	} {
		idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
		for _, o := range objs {
			if err := idx.Add(o); err != nil {
				t.Fatal(err)
			}
		}
		listers[kind] = cache.NewGenericLister(idx, catalogResources[kind].GroupResource())
	}
	s := &Simulator{catalogs: &imageCatalogs{listers: listers}}
	ref := func(kind, name string, major int) *cnpgv1.ImageCatalogRef {
		return &cnpgv1.ImageCatalogRef{APIGroup: ptr.To("postgresql.cnpg.io"), Kind: kind, Name: name, Major: major}
	}
	for _, tc := range []struct {
		name      string
		ns        string
		spec      cnpgv1.ClusterSpec
		image, re string // re: CNPG's reason, "" for none
	}{
		{"image name", "team", cnpgv1.ClusterSpec{ImageName: "reg/pg:16"}, "reg/pg:16", ""},
		{"neither", "team", cnpgv1.ClusterSpec{}, "", "ImageName is not defined and no catalog is referenced"},
		{"cluster catalog", "team", cnpgv1.ClusterSpec{ImageCatalogRef: ref("ClusterImageCatalog", "postgresql", 17)}, "reg/pg:17.2", ""},
		{"namespaced catalog", "team", cnpgv1.ClusterSpec{ImageCatalogRef: ref("ImageCatalog", "own", 16)}, "team/pg:16.5", ""},
		{"namespaced catalog of another namespace", "shop", cnpgv1.ClusterSpec{ImageCatalogRef: ref("ImageCatalog", "own", 16)}, "", "catalog ImageCatalog/own not found"},
		{"missing major", "team", cnpgv1.ClusterSpec{ImageCatalogRef: ref("ClusterImageCatalog", "postgresql", 18)}, "", "selected major version is not available in the catalog"},
		{"missing catalog", "team", cnpgv1.ClusterSpec{ImageCatalogRef: ref("ClusterImageCatalog", "gone", 16)}, "", "catalog ClusterImageCatalog/gone not found"},
		{"other group", "team", cnpgv1.ClusterSpec{ImageCatalogRef: &cnpgv1.ImageCatalogRef{Kind: "ClusterImageCatalog", Name: "postgresql", Major: 16}}, "", "invalid image catalog group"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &cnpgv1.Cluster{Spec: tc.spec}
			c.Namespace = tc.ns
			got, err := s.requestedImage(c)
			if got != tc.image {
				t.Errorf("image = %q, want %q", got, tc.image)
			}
			msg := ""
			if err != nil {
				msg = err.Error()
			}
			if msg != tc.re {
				t.Errorf("error = %q, want %q", msg, tc.re)
			}
		})
	}
}
