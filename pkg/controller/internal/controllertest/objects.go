package controllertest

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/util/diff"
	k8stesting "k8s.io/client-go/testing"
)

// AnyVersion stands, in an expected patch body, for the resourceVersion a
// merge patch is guarded by: the body must carry one, whatever its value
// (the stand-in API numbers versions by the order of the writes).
const AnyVersion = "(any resourceVersion)"

// serverFilled are the metadata fields the API server fills in. A field
// the expected object leaves empty is not compared: a created object's
// UID and generation are the server's, a stored one's resourceVersion,
// managedFields and creationTimestamp too. One the expected object sets
// is compared (an object seeded with its UID keeps it). So are apiVersion
// and kind, which a typed object carries or not depending on its path.
var serverFilled = []string{"resourceVersion", "managedFields", "creationTimestamp", "uid", "generation"}

// Option adjusts a whole-object comparison.
type Option func(*compare)

type compare struct{ generated [][]string }

// Generated names a field whose value the writer makes up (a random
// password, the wall-clock time of a condition's transition): it must be
// set, non-empty, and its value is not compared. path is the field's JSON
// path, such as "data", "password"; "*" stands for every item of a list:
// "status", "conditions", "*", "lastTransitionTime".
func Generated(path ...string) Option {
	return func(c *compare) { c.generated = append(c.generated, path) }
}

// Sends is a Check that the request writes want whole, as sample-controller
// compares the objects of its expected actions: the object a create or
// update sends, or the body of a patch (a server-side apply's apply
// configuration, a merge patch's JSON). want is the object, the apply
// configuration, or the patch as a JSON string; the two are compared as
// JSON, so an apply body must set exactly the fields want sets, false and
// empty values included. What differs is shown as a diff (-want +got).
func Sends(want any, opts ...Option) func(a k8stesting.Action) string {
	return func(a k8stesting.Action) string {
		var got any
		if body := Patch(a); body != "" {
			got = json.RawMessage(body)
		} else if o := Object(a); o != nil {
			got = o
		} else {
			return fmt.Sprintf("%s sends no object", describe(a))
		}
		return Diff(want, got, opts...)
	}
}

// Diff is "" when got is want as a whole object, and otherwise says how
// they differ (-want +got): for comparing the end state of the fake API
// (an object as stored after a pass) as well as what a request sent. Both
// are compared as JSON; a string or []byte is taken as JSON. The fields
// the API server fills (serverFilled) are compared only where want sets
// them.
func Diff(want, got any, opts ...Option) string {
	var c compare
	for _, o := range opts {
		o(&c)
	}
	w, err := asJSON(want)
	if err != nil {
		return fmt.Sprintf("expected object: %v", err)
	}
	g, err := asJSON(got)
	if err != nil {
		return fmt.Sprintf("written object: %v", err)
	}
	settle(w, g)
	for _, path := range c.generated {
		if msg := generated(w, g, path); msg != "" {
			return msg
		}
	}
	if reflect.DeepEqual(w, g) {
		return ""
	}
	return "(-want +got)\n" + diff.Diff(w, g)
}

// asJSON is v as JSON decoded into maps, slices and scalars.
func asJSON(v any) (map[string]any, error) {
	var raw []byte
	switch v := v.(type) {
	case string:
		raw = []byte(v)
	case []byte:
		raw = v
	case json.RawMessage:
		raw = v
	default:
		var err error
		if raw, err = json.Marshal(v); err != nil {
			return nil, err
		}
	}
	out := map[string]any{}
	if err := json.Unmarshal(raw, &out); err != nil {
		return nil, fmt.Errorf("%w in %s", err, raw)
	}
	return out, nil
}

// settle drops from got the server-filled metadata want leaves empty, and
// the type (apiVersion, kind) when want leaves it to its Go type; and
// AnyVersion in want matches any resourceVersion got carries.
func settle(want, got map[string]any) {
	for _, k := range []string{"apiVersion", "kind"} {
		if isEmpty(want[k]) {
			delete(want, k)
			delete(got, k)
		}
	}
	wm, _ := want["metadata"].(map[string]any)
	gm, _ := got["metadata"].(map[string]any)
	for _, k := range serverFilled {
		if wm == nil || isEmpty(wm[k]) {
			delete(wm, k)
			delete(gm, k)
		}
	}
	if wm != nil && gm != nil && wm["resourceVersion"] == AnyVersion && !isEmpty(gm["resourceVersion"]) {
		gm["resourceVersion"] = AnyVersion
	}
	if wm != nil && len(wm) == 0 {
		delete(want, "metadata")
	}
	if gm != nil && len(gm) == 0 {
		delete(got, "metadata")
	}
}

func isEmpty(v any) bool {
	switch v := v.(type) {
	case nil:
		return true
	case string:
		return v == ""
	case float64:
		return v == 0
	case []any:
		return len(v) == 0
	}
	return false
}

// generated checks that got sets the field at path and takes its value
// into want, so that only its presence is compared. "*" in path is every
// item of a list.
func generated(want, got map[string]any, path []string) string {
	if missing := fill(want, got, path); missing {
		return fmt.Sprintf("%s not set: a value was to be generated", strings.Join(path, "."))
	}
	return ""
}

// fill copies the value at path from got into want, and reports whether
// got lacks it.
func fill(want, got any, path []string) bool {
	if path[0] == "*" {
		gl, ok := got.([]any)
		if !ok {
			return true
		}
		wl, _ := want.([]any)
		for i := range gl {
			var w any
			if i < len(wl) {
				w = wl[i]
			}
			if fill(w, gl[i], path[1:]) {
				return true
			}
		}
		return false
	}
	gm, ok := got.(map[string]any)
	if !ok {
		return true
	}
	wm, _ := want.(map[string]any)
	if len(path) > 1 {
		return fill(wm[path[0]], gm[path[0]], path[1:])
	}
	if isEmpty(gm[path[0]]) {
		return true
	}
	if wm != nil {
		wm[path[0]] = gm[path[0]]
	}
	return false
}
