package parity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	pgv1 "github.com/setpoint-dev/setpoint/pkg/apis/postgres/v1alpha1"
)

// A Value is one observation as JSON decodes it (maps, lists, strings,
// numbers, booleans), normalized: equal Values mean the same state.
type Value = any

// Markers stand for what differs by site or by moment.
const (
	markerSet        = "<set>"            // a time, WAL position, path or version: present
	markerGeneration = "<generation>"     // observedGeneration equal to the object's
	markerOtherGen   = "<not generation>" // observedGeneration behind (or ahead of) it
)

// volatile are the status fields whose value depends on the site or the
// moment (times, WAL positions, backup identifiers, the store's paths,
// resourceVersions): only their presence is compared.
var volatile = map[string]bool{
	"lastTransitionTime": true, "startedAt": true, "stoppedAt": true,
	"lastCheckTime": true, "lastScheduleTime": true, "nextScheduleTime": true,
	"firstRecoverabilityPoint": true, "lastSuccessfulBackupTime": true, "lastFailedBackupTime": true,
	"beginWal": true, "endWal": true, "beginLSN": true, "endLSN": true,
	"backupId": true, "backupName": true, "destinationPath": true, "archivePath": true,
	"secretResourceVersion": true, "expiration": true, "expirations": true, "requestedAt": true, "handledAt": true,
	// pgDataImageInfo.image: each site names its own images (its major is
	// compared).
	"image": true,
}

// unrecorded are status fields setpoint reads only for a distributed
// topology (docs/adr/0015-replica-clusters-follow-an-archive.md), newer
// than the record and left out of it: the timeline a cluster is on
// depends on its history (a restore or a promotion starts a new one), and
// the hand-over tokens exist only in a topology, which the parity steps
// do not build.
var unrecorded = map[string]bool{"timelineID": true, "demotionToken": true, "lastPromotionToken": true}

// volatileMessage are the condition types whose message is a value of
// the moment: a DatabaseRole's PasswordSecretChange message is the
// password Secret's resourceVersion.
var volatileMessage = map[string]bool{"PasswordSecretChange": true}

// Normalize turns a status into a Value: every conditions list becomes a
// map by type, each observedGeneration a marker against generation, and
// each volatile field a marker.
func Normalize(status any, generation int64) (Value, error) {
	b, err := json.Marshal(status)
	if err != nil {
		return nil, fmt.Errorf("marshal status: %w", err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return nil, fmt.Errorf("unmarshal status: %w", err)
	}
	return walk(v, generation), nil
}

func walk(v any, generation int64) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			switch {
			case unrecorded[k]:
			case k == "observedGeneration":
				out[k] = generationMarker(e, generation)
			case volatile[k]:
				if e != nil && e != "" {
					out[k] = markerSet
				}
			case k == "conditions":
				out[k] = conditionsByType(e, generation)
			default:
				out[k] = walk(e, generation)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = walk(e, generation)
		}
		return out
	default:
		return x
	}
}

func generationMarker(v any, generation int64) string {
	if n, ok := v.(float64); ok && int64(n) == generation {
		return markerGeneration
	}
	return markerOtherGen
}

// conditionsByType keys a conditions list by type, so that a condition
// compares with its namesake whatever the order CNPG wrote them in.
func conditionsByType(v any, generation int64) any {
	list, ok := v.([]any)
	if !ok {
		return walk(v, generation)
	}
	out := make(map[string]any, len(list))
	for _, e := range list {
		c, ok := walk(e, generation).(map[string]any)
		if !ok {
			continue
		}
		typ, _ := c["type"].(string)
		delete(c, "type")
		if volatileMessage[typ] && c["message"] != nil && c["message"] != "" {
			c["message"] = markerSet
		}
		out[typ] = c
	}
	return out
}

// Conclusion is setpoint's own verdict on an object: its phase and each
// condition's status and reason (the messages are setpoint's prose, and
// name what differs by site).
func Conclusion(phase pgv1.Phase, generation, observed int64, conds []metav1.Condition) Value {
	c := make(map[string]any, len(conds))
	for _, cond := range conds {
		c[cond.Type] = string(cond.Status) + "/" + cond.Reason
	}
	return map[string]any{
		"phase":              string(phase),
		"observedGeneration": generationMarker(float64(observed), generation),
		"conditions":         c,
	}
}

// Canonical is v as compact JSON with sorted keys (encoding/json sorts map
// keys), the form Values are compared in.
func Canonical(v Value) string {
	b, err := encode(v, "")
	if err != nil {
		return fmt.Sprintf("<unencodable: %v>", err)
	}
	return strings.TrimSuffix(string(b), "\n")
}

// encode is JSON without HTML escaping, so that markers read as written.
func encode(v any, indent string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", indent)
	err := enc.Encode(v)
	return buf.Bytes(), err
}

// Without returns a copy of v without the value at path (dot-separated map
// keys), and the value removed (nil when there was none).
func Without(v Value, path string) (Value, any) {
	keys := strings.Split(path, ".")
	m, ok := v.(map[string]any)
	if !ok {
		return v, nil
	}
	out := maps.Clone(m)
	head, rest := keys[0], keys[1:]
	if len(rest) == 0 {
		removed := out[head]
		delete(out, head)
		return out, removed
	}
	sub, removed := Without(out[head], strings.Join(rest, "."))
	if sub != nil {
		out[head] = sub
	}
	return out, removed
}
