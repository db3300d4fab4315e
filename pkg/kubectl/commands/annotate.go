package commands

import (
	"encoding/json"
	"fmt"
	"time"
)

// annotationPatch is a JSON merge patch of annotations alone: the one
// write rotate and backup make. A nil value removes the annotation.
func annotationPatch(annotations map[string]*string) ([]byte, error) {
	b, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": annotations}})
	if err != nil {
		return nil, fmt.Errorf("encode patch: %w", err)
	}
	return b, nil
}

// requestID is the default id of a request: the time, as the examples of
// docs/guides use it. A new value is a new request.
func requestID(now time.Time) string { return now.UTC().Format("20060102150405") }
