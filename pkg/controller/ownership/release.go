package ownership

import (
	"encoding/json"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReleasePatch is a merge patch that hands obj over to a later object of
// o's kind and name: only o's owner reference is removed (others stay) and
// the retained marks are set, with annotations besides them (nil for
// none). It is guarded by resourceVersion, since a merge patch replaces
// the whole reference list.
func (o Owner) ReleasePatch(obj metav1.Object, annotations map[string]string) ([]byte, error) {
	refs := slices.DeleteFunc(slices.Clone(obj.GetOwnerReferences()), func(r metav1.OwnerReference) bool { return r.UID == o.UID })
	labels, marks := o.RetainedMarks()
	all := toAny(marks)
	for k, v := range annotations {
		all[k] = v
	}
	return metadataPatch(obj.GetResourceVersion(), refs, toAny(labels), all)
}

// AdoptPatch is a merge patch that makes obj, retained for o, o's again:
// o's controller reference is added and the retained marks are removed.
func (o Owner) AdoptPatch(obj metav1.Object, ref metav1.OwnerReference) ([]byte, error) {
	refs := append(slices.Clone(obj.GetOwnerReferences()), ref)
	return metadataPatch(obj.GetResourceVersion(), refs,
		map[string]any{RetainedLabel: nil},
		map[string]any{RetainedForAnnotation: nil, RetainedClusterAnnotation: nil})
}

func metadataPatch(resourceVersion string, refs []metav1.OwnerReference, labels, annotations map[string]any) ([]byte, error) {
	if refs == nil {
		refs = []metav1.OwnerReference{}
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": resourceVersion, "ownerReferences": refs,
		"labels": labels, "annotations": annotations,
	}})
	if err != nil {
		return nil, fmt.Errorf("encode metadata patch: %w", err)
	}
	return patch, nil
}

func toAny(m map[string]string) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
