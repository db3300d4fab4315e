package database

import (
	"encoding/json"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

const mergePatch = types.MergePatchType

// metaPatch is a merge patch of metadata: the whole owner reference list
// (a merge patch cannot edit one entry) and some labels (nil deletes),
// guarded by resourceVersion so a concurrent change is never lost.
func metaPatch(resourceVersion string, refs []metav1.OwnerReference, labels map[string]any) ([]byte, error) {
	if refs == nil {
		refs = []metav1.OwnerReference{}
	}
	patch, err := json.Marshal(map[string]any{"metadata": map[string]any{
		"resourceVersion": resourceVersion, "ownerReferences": refs, "labels": labels,
	}})
	if err != nil {
		return nil, fmt.Errorf("encode metadata patch: %w", err)
	}
	return patch, nil
}
