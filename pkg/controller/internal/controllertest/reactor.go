package controllertest

import (
	"errors"
	"fmt"
	"strconv"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/uuid"
	k8stesting "k8s.io/client-go/testing"
)

// Clientset is what both generated fake clientsets offer.
type Clientset interface {
	PrependReactor(verb, resource string, reaction k8stesting.ReactionFunc)
	Tracker() k8stesting.ObjectTracker
}

// Fault is an error the Reactor answers a request with instead of
// serving it. Empty fields match anything; Times bounds how many requests
// fail (0: all of them).
type Fault struct {
	Verb, Resource, Subresource, Name string
	Err                               error
	Times                             int
}

func (f *Fault) matches(a k8stesting.Action) bool {
	name := ""
	if n, ok := a.(interface{ GetName() string }); ok {
		name = n.GetName()
	}
	if o, ok := a.(interface{ GetObject() runtime.Object }); ok && name == "" && o.GetObject() != nil {
		if m, err := meta.Accessor(o.GetObject()); err == nil {
			name = m.GetName()
		}
	}
	return (f.Verb == "" || f.Verb == a.GetVerb()) &&
		(f.Resource == "" || f.Resource == a.GetResource().Resource) &&
		(f.Subresource == "" || f.Subresource == a.GetSubresource()) &&
		(f.Name == "" || f.Name == name)
}

// API serves fake clientsets' writes as one API server does where
// controllers depend on it: every create, update, patch and apply stores
// a new resourceVersion (and a create a UID), an update that carries a
// superseded resourceVersion fails with Conflict, and the Faults fail
// the requests they match. Reads go to the fakes' trackers unchanged.
// It logs every request of all its clientsets in the order they came.
type API struct {
	mu      sync.Mutex
	version int64
	faults  []*Fault
	log     []k8stesting.Action
}

// NewAPI puts one API in front of the clientsets' own reactors.
func NewAPI(clientsets ...Clientset) *API {
	api := &API{version: 1000}
	for _, cs := range clientsets {
		r := &reactor{api: api, tracker: cs.Tracker(), serve: k8stesting.ObjectReaction(cs.Tracker())}
		cs.PrependReactor("*", "*", r.react)
	}
	return api
}

// reactor is the API in front of one clientset's tracker.
type reactor struct {
	api     *API
	tracker k8stesting.ObjectTracker
	serve   k8stesting.ReactionFunc
}

// Fail adds faults to the table.
func (api *API) Fail(faults ...Fault) {
	api.mu.Lock()
	defer api.mu.Unlock()
	for i := range faults {
		api.faults = append(api.faults, &faults[i])
	}
}

// Actions are the requests since the last Clear, in order.
func (api *API) Actions() []k8stesting.Action {
	api.mu.Lock()
	defer api.mu.Unlock()
	return append([]k8stesting.Action(nil), api.log...)
}

// Clear forgets the requests logged so far.
func (api *API) Clear() {
	api.mu.Lock()
	defer api.mu.Unlock()
	api.log = nil
}

// ServerError is the 500 an overloaded or broken API server returns.
func ServerError(msg string) error { return apierrors.NewInternalError(errors.New(msg)) }

func (r *reactor) react(a k8stesting.Action) (bool, runtime.Object, error) {
	r.api.mu.Lock()
	defer r.api.mu.Unlock()
	r.api.log = append(r.api.log, a.DeepCopy())
	if err := r.api.fault(a); err != nil {
		return true, nil, err
	}
	switch a.GetVerb() {
	case "create", "update", "patch":
	default:
		return false, nil, nil
	}
	if u, ok := a.(k8stesting.UpdateAction); ok {
		if err := r.checkVersion(u); err != nil {
			return true, nil, err
		}
	}
	handled, obj, err := r.serve(a)
	if err != nil || obj == nil {
		return handled, obj, err
	}
	return true, obj, r.version1(a, obj)
}

// fault returns the error of the first fault that matches a, if any.
func (api *API) fault(a k8stesting.Action) error {
	for i, f := range api.faults {
		if !f.matches(a) {
			continue
		}
		if f.Times > 0 {
			if f.Times--; f.Times == 0 {
				api.faults = append(api.faults[:i], api.faults[i+1:]...)
			}
		}
		return f.Err
	}
	return nil
}

// checkVersion refuses an update whose resourceVersion is set and is not
// the stored one: the optimistic concurrency every update relies on.
func (r *reactor) checkVersion(u k8stesting.UpdateAction) error {
	m, err := meta.Accessor(u.GetObject())
	if err != nil || m.GetResourceVersion() == "" {
		return nil
	}
	stored, err := r.tracker.Get(u.GetResource(), u.GetNamespace(), m.GetName())
	if err != nil {
		return nil // the tracker answers NotFound itself
	}
	sm, err := meta.Accessor(stored)
	if err != nil || sm.GetResourceVersion() == m.GetResourceVersion() {
		return nil
	}
	return apierrors.NewConflict(u.GetResource().GroupResource(), m.GetName(),
		fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
}

// version1 stores obj again with the next resourceVersion (and a UID when
// it has none), and returns it so the caller sees what was stored.
func (r *reactor) version1(a k8stesting.Action, obj runtime.Object) error {
	m, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	r.api.version++
	m.SetResourceVersion(strconv.FormatInt(r.api.version, 10))
	if m.GetUID() == "" {
		m.SetUID(types.UID(uuid.NewUUID()))
	}
	return r.tracker.Update(a.GetResource(), obj, m.GetNamespace())
}
