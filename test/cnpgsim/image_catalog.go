package cnpgsim

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/klog/v2"

	cnpgv1 "github.com/setpoint-dev/setpoint/pkg/apis/cnpg/v1"
)

// PhaseImageCatalogError is CNPG's phase when it cannot pick the image of
// a Cluster's imageCatalogRef (internal/controller/cluster_image.go).
const PhaseImageCatalogError = "Cluster has incomplete or invalid image catalog"

// The catalog kinds CNPG resolves images from, and their resources.
var catalogResources = map[string]schema.GroupVersionResource{
	"ClusterImageCatalog": {Group: "postgresql.cnpg.io", Version: "v1", Resource: "clusterimagecatalogs"},
	"ImageCatalog":        {Group: "postgresql.cnpg.io", Version: "v1", Resource: "imagecatalogs"},
}

// imageCatalogs watches both catalog kinds, as CNPG's Cluster controller
// does: a catalog's change is a change of the image of every Cluster that
// names it (the minor-upgrade path), and a missing major added later
// lets a Cluster stuck on it proceed.
type imageCatalogs struct {
	factory dynamicinformer.DynamicSharedInformerFactory
	listers map[string]cache.GenericLister // by kind

	mu sync.Mutex
	// picked is each Cluster's image as CNPG reports it in status.image,
	// which setpoint's typed status subset does not read (pkg/apis/cnpg/v1
	// ClusterStatus says why): Image reports it to tests.
	picked map[cache.ObjectName]string
}

// Image is the image the stand-in picked for a Cluster as CNPG 1.30 does
// (its status.image): imageName, or its catalog's image for the major; ""
// before one was first picked. Like CNPG's status.image it keeps the last
// image picked while none can be.
func (s *Simulator) Image(namespace, name string) string {
	s.catalogs.mu.Lock()
	defer s.catalogs.mu.Unlock()
	return s.catalogs.picked[cache.ObjectName{Namespace: namespace, Name: name}]
}

func (c *imageCatalogs) pick(key cache.ObjectName, image string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if image == "" {
		delete(c.picked, key)
		return
	}
	c.picked[key] = image
}

// wireImageCatalogs adds the catalogs' informers; unlike the CNPG objects
// they are not filtered by Options.Selector: a catalog is shared, and
// CNPG reads it whatever its labels.
func (s *Simulator) wireImageCatalogs(cfg *rest.Config) error {
	dyn, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return fmt.Errorf("dynamic client: %w", err)
	}
	s.catalogs = &imageCatalogs{factory: dynamicinformer.NewDynamicSharedInformerFactory(dyn, 0), listers: map[string]cache.GenericLister{},
		picked: map[cache.ObjectName]string{}}
	for kind, gvr := range catalogResources {
		inf := s.catalogs.factory.ForResource(gvr)
		s.catalogs.listers[kind] = inf.Lister()
		reg, err := inf.Informer().AddEventHandler(handlerFunc(func(obj any) { s.enqueueCatalogClusters(kind, obj) }))
		if err != nil {
			return fmt.Errorf("add event handler: %w", err)
		}
		s.synced = append(s.synced, reg.HasSynced)
	}
	return nil
}

// enqueueCatalogClusters looks again at the Clusters that name the catalog.
func (s *Simulator) enqueueCatalogClusters(kind string, obj any) {
	cat, ok := unwrapTombstone(obj).(*unstructured.Unstructured)
	if !ok {
		return
	}
	clusters, err := s.clusters.List(everything)
	if err != nil {
		return
	}
	for _, c := range clusters {
		r := c.Spec.ImageCatalogRef
		if r == nil || r.Kind != kind || r.Name != cat.GetName() || (kind == "ImageCatalog" && c.Namespace != cat.GetNamespace()) {
			continue
		}
		s.clusterLoop.add(cache.ObjectName{Namespace: c.Namespace, Name: c.Name})
	}
}

// requestedImage is CNPG's getRequestedImageInfo: imageName, or the image
// the catalog holds for imageCatalogRef's major. The error's text is
// CNPG's, word for word: it becomes the phaseReason.
func (s *Simulator) requestedImage(c *cnpgv1.Cluster) (string, error) {
	r := c.Spec.ImageCatalogRef
	if r == nil {
		if c.Spec.ImageName != "" {
			return c.Spec.ImageName, nil
		}
		return "", fmt.Errorf("ImageName is not defined and no catalog is referenced")
	}
	lister, ok := s.catalogs.listers[r.Kind]
	if !ok {
		return "", fmt.Errorf("invalid image catalog type: %s", r.Kind)
	}
	if r.APIGroup == nil || *r.APIGroup != "postgresql.cnpg.io" {
		return "", fmt.Errorf("invalid image catalog group")
	}
	key := r.Name
	if r.Kind == "ImageCatalog" {
		key = c.Namespace + "/" + r.Name
	}
	obj, err := lister.Get(key)
	if err != nil {
		return "", fmt.Errorf("catalog %s/%s not found", r.Kind, r.Name)
	}
	images, _, _ := unstructured.NestedSlice(obj.(*unstructured.Unstructured).Object, "spec", "images")
	for _, im := range images {
		m, _ := im.(map[string]any)
		if major, _, _ := unstructured.NestedInt64(m, "major"); int(major) == r.Major {
			image, _, _ := unstructured.NestedString(m, "image")
			return image, nil
		}
	}
	return "", fmt.Errorf("selected major version is not available in the catalog")
}

// reconcileImage is the first step of a Cluster's sync, as in CNPG: it
// picks the image (Image reports it) and keeps pgDataImageInfo
// (data_image.go), or, when it cannot pick one, writes
// the phase "Cluster has incomplete or invalid image catalog" with CNPG's
// reason and Ready False, and goes no further (done). CNPG does not retry
// on its own: a change of the Cluster or of its catalog does. Like CNPG
// it keeps the image it picked last while it cannot pick one.
func (r *clusterRun) reconcileImage(ctx context.Context) (done bool, err error) {
	c := r.cluster
	info, perr := r.s.requestedImageInfo(c)
	if perr == nil {
		r.s.catalogs.pick(r.inst.key, info.Image)
		r.requested = info
		return false, r.reconcileDataImage(ctx, info)
	}
	// CNPG's RegisterPhase: the phase, its reason and the Ready condition
	// it implies; nothing else changes.
	st := c.Status.DeepCopy()
	st.Phase, st.PhaseReason = PhaseImageCatalogError, perr.Error()
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{
		Type: conditionReady, Status: metav1.ConditionFalse, Reason: reasonClusterUnready, Message: messageUnready,
	})
	if equality.Semantic.DeepEqual(*st, c.Status) {
		return true, nil
	}
	next := c.DeepCopy()
	next.Status = *st
	updated, err := r.s.cnpg.CNPGV1().Clusters(c.Namespace).UpdateStatus(ctx, next, metav1.UpdateOptions{FieldManager: r.s.opts.FieldManager})
	if err != nil {
		return true, fmt.Errorf("update cluster status: %w", err)
	}
	r.cluster = updated
	klog.FromContext(ctx).Info("Cannot pick the image", "cluster", klog.KObj(c), "reason", perr.Error())
	return true, nil
}
