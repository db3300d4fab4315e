package operator

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/controller/cluster"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func resourceList(gv string, names ...string) *metav1.APIResourceList {
	l := &metav1.APIResourceList{GroupVersion: gv}
	for _, n := range names {
		l.APIResources = append(l.APIResources, metav1.APIResource{Name: n})
	}
	return l
}

// fakeDiscovery serves Resources; NotFound for other group versions.
type fakeDiscovery struct {
	mu        sync.Mutex
	Resources []*metav1.APIResourceList
}

func (f *fakeDiscovery) set(lists ...*metav1.APIResourceList) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.Resources = lists
}

func (f *fakeDiscovery) ServerResourcesForGroupVersion(gv string) (*metav1.APIResourceList, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, l := range f.Resources {
		if l.GroupVersion == gv {
			return l, nil
		}
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{}, gv)
}

// optionalAPI is the optional API of resource, as the components declare it.
func optionalAPI(t *testing.T, resource string) informers.OptionalAPI {
	t.Helper()
	for _, o := range cluster.OptionalAPIs() {
		if o.Resource == resource {
			return o
		}
	}
	t.Fatalf("no component declares %s", resource)
	return informers.OptionalAPI{}
}

func TestDiscoverAPIs(t *testing.T) {
	disc := &fakeDiscovery{}
	optional := cluster.OptionalAPIs()
	objectStores, podMonitors := optionalAPI(t, "objectstores"), optionalAPI(t, "podmonitors")
	a, err := discoverAPIs(disc, optional)
	if err != nil {
		t.Fatal(err)
	}
	if a.cnpgInstalled() || a.served(objectStores) {
		t.Fatalf("nothing installed, got %+v", a)
	}
	if r := a.notReadyReason(); !strings.Contains(r, "CloudNativePG is not installed") || !strings.Contains(r, "clusters, databases, databaseroles, poolers, scheduledbackups") {
		t.Errorf("readiness message %q", r)
	}

	disc.Resources = []*metav1.APIResourceList{resourceList(cnpgGroupVersion, "clusters", "poolers")}
	if a, _ = discoverAPIs(disc, optional); a.cnpgInstalled() || strings.Join(a.missingCNPG, ",") != "databases,databaseroles,scheduledbackups" {
		t.Errorf("partial CNPG: missing %v", a.missingCNPG)
	}

	disc.Resources = []*metav1.APIResourceList{resourceList(cnpgGroupVersion, cnpgResources...)}
	if a, _ = discoverAPIs(disc, optional); !a.cnpgInstalled() || a.served(objectStores) || a.notReadyReason() != "" {
		t.Errorf("CNPG without plugin: %+v", a)
	}
	disc.Resources = append(disc.Resources, resourceList(objectStores.GroupVersion(), objectStores.Resource))
	if a, _ = discoverAPIs(disc, optional); !a.cnpgInstalled() || !a.served(objectStores) || a.served(podMonitors) {
		t.Errorf("CNPG with plugin: %+v", a)
	}
	disc.Resources = append(disc.Resources, resourceList(podMonitors.GroupVersion(), podMonitors.Resource))
	if a, _ = discoverAPIs(disc, optional); !a.cnpgInstalled() || !a.served(podMonitors) {
		t.Errorf("with the Prometheus Operator: %+v", a)
	}
	prev := a
	prev.missing = map[string]bool{podMonitors.CRD(): true}
	if a.equal(prev) {
		t.Error("a PodMonitor CRD that appears is not a change (the controllers would not restart)")
	}
}

// The watcher publishes the first answer and every change, and nothing
// while discovery says the same.
func TestAPIWatcherPublishesChanges(t *testing.T) {
	disc := &fakeDiscovery{}
	w := newAPIWatcher(disc)
	w.minInterval, w.maxInterval = time.Millisecond, 5*time.Millisecond
	go w.run(t.Context())

	waitState := func(what string, ok func(apis) bool) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			a, known, changed := w.state()
			if known && ok(a) {
				return
			}
			select {
			case <-changed:
			case <-time.After(time.Second):
			}
		}
		t.Fatalf("watcher never reported %s", what)
	}
	waitState("CNPG missing", func(a apis) bool { return !a.cnpgInstalled() })
	_, _, changed := w.state()
	select {
	case <-changed:
		t.Fatal("published a change while nothing changed")
	case <-time.After(50 * time.Millisecond): // ten polls at most 5ms apart
	}
	disc.set(resourceList(cnpgGroupVersion, cnpgResources...))
	waitState("CNPG installed", func(a apis) bool { return a.cnpgInstalled() && !a.served(optionalAPI(t, "objectstores")) })
}
