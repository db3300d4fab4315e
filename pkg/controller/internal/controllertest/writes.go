package controllertest

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	k8stesting "k8s.io/client-go/testing"
)

// Write is one write a pass made, as a test expects it: the request, and
// optionally what the object written must be.
type Write struct {
	Verb, Resource, Subresource, Name string
	// Check examines the request (its object or patch) and returns what
	// is wrong with it, or "".
	Check func(a k8stesting.Action) string
	// Group, when not 0, makes a run of consecutive writes of the same
	// Group one set, in any order: requests a pass makes concurrently.
	Group int
}

func (w Write) String() string {
	s := w.Verb + " " + w.Resource
	if w.Subresource != "" {
		s += "/" + w.Subresource
	}
	return s + " " + w.Name
}

// Writes are the requests among actions that change something, in order.
func Writes(actions []k8stesting.Action) []k8stesting.Action {
	var out []k8stesting.Action
	for _, a := range actions {
		switch a.GetVerb() {
		case "create", "update", "patch", "delete", "delete-collection":
			out = append(out, a)
		}
	}
	return out
}

// Name is the name of the object a request is about.
func Name(a k8stesting.Action) string {
	if n, ok := a.(interface{ GetName() string }); ok && n.GetName() != "" {
		return n.GetName()
	}
	if o := Object(a); o != nil {
		if m, err := meta.Accessor(o); err == nil {
			return m.GetName()
		}
	}
	return ""
}

// Object is the object a create or update sends, nil for other requests.
func Object(a k8stesting.Action) runtime.Object {
	if o, ok := a.(interface{ GetObject() runtime.Object }); ok {
		return o.GetObject()
	}
	return nil
}

func describe(a k8stesting.Action) string {
	return Write{Verb: a.GetVerb(), Resource: a.GetResource().Resource, Subresource: a.GetSubresource(), Name: Name(a)}.String()
}

// Expect fails t unless the writes among actions are want, in order, and
// each passes its Check (sample-controller's checkAction, for writes).
func Expect(t *testing.T, actions []k8stesting.Action, want []Write) {
	t.Helper()
	got := Writes(actions)
	if len(got) == len(want) {
		got = alignGroups(got, want)
	}
	var gotS, wantS []string
	for _, a := range got {
		gotS = append(gotS, describe(a))
	}
	for _, w := range want {
		wantS = append(wantS, w.String())
	}
	if strings.Join(gotS, "\n") != strings.Join(wantS, "\n") {
		t.Fatalf("writes:\n  %s\nwant:\n  %s", strings.Join(gotS, "\n  "), strings.Join(wantS, "\n  "))
	}
	for i, w := range want {
		if w.Check == nil {
			continue
		}
		if msg := w.Check(got[i]); msg != "" {
			t.Errorf("%s: %s", w, msg)
		}
	}
}

// Patch is the body of a patch or apply request, "" for others.
func Patch(a k8stesting.Action) string {
	if p, ok := a.(k8stesting.PatchAction); ok {
		return string(p.GetPatch())
	}
	return ""
}

// Contains is a Check that the patch or object, printed, contains each of
// parts. Sends, which compares the whole object, says more.
func Contains(parts ...string) func(k8stesting.Action) string {
	return func(a k8stesting.Action) string {
		body := Patch(a)
		if body == "" {
			body = fmt.Sprintf("%+v", Object(a))
		}
		for _, p := range parts {
			if !strings.Contains(body, p) {
				return fmt.Sprintf("%q not in %s", p, body)
			}
		}
		return ""
	}
}

// alignGroups reorders each run of got that a Group of want covers to
// want's order, where the run holds the same writes.
func alignGroups(got []k8stesting.Action, want []Write) []k8stesting.Action {
	out := slices.Clone(got)
	for start := 0; start < len(want); {
		end := start + 1
		for end < len(want) && want[start].Group != 0 && want[end].Group == want[start].Group {
			end++
		}
		run := slices.Clone(out[start:end])
		for i, w := range want[start:end] {
			j := slices.IndexFunc(run, func(a k8stesting.Action) bool { return a != nil && describe(a) == w.String() })
			if j < 0 {
				return got // not the same set: report as it came
			}
			out[start+i], run[j] = run[j], nil
		}
		start = end
	}
	return out
}
