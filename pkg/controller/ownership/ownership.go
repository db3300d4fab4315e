package ownership

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	metav1ac "k8s.io/client-go/applyconfigurations/meta/v1"
)

// OwnerRef is a controller owner reference to obj of kind gvk.
func OwnerRef(obj metav1.Object, gvk schema.GroupVersionKind) metav1.OwnerReference {
	return *metav1.NewControllerRef(obj, gvk)
}

// OwnerRefApply is the same reference as an apply configuration.
func OwnerRefApply(obj metav1.Object, gvk schema.GroupVersionKind) *metav1ac.OwnerReferenceApplyConfiguration {
	return metav1ac.OwnerReference().
		WithAPIVersion(gvk.GroupVersion().String()).WithKind(gvk.Kind).
		WithName(obj.GetName()).WithUID(obj.GetUID()).
		WithController(true).WithBlockOwnerDeletion(true)
}

// IsControlledBy reports whether obj's controller reference names uid.
func IsControlledBy(obj metav1.Object, uid types.UID) bool {
	ref := metav1.GetControllerOfNoCopy(obj)
	return ref != nil && ref.UID == uid
}

// DeleteOf are the options of a delete of obj, judged ours from the
// cache: the UID precondition makes the API server refuse the delete
// (409 Conflict) when the object now under that name is not the one
// judged — deleted and re-created by someone else since the cache saw
// it — so a delete can only ever remove the object we proved ours.
func DeleteOf(obj metav1.Object) metav1.DeleteOptions {
	uid := obj.GetUID()
	return metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}}
}

// ManagedLabels are the labels of a child of a PostgresCluster or
// PostgresDatabase; ownerLabel is ClusterLabel or DatabaseLabel.
func ManagedLabels(ownerLabel, ownerName string) map[string]string {
	return map[string]string{ManagedByLabel: ManagedByValue, ownerLabel: ownerName}
}
