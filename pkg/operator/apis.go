package operator

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/setpoint-dev/setpoint/pkg/controller/cluster"
	"github.com/setpoint-dev/setpoint/pkg/controller/informers"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/discovery"
	"k8s.io/klog/v2"
)

// The CRDs setpoint works with: CloudNativePG's are required; those the
// cluster components declare (cluster.OptionalAPIs: the barman-cloud
// plugin's ObjectStore, the Prometheus Operator's PodMonitor) are optional,
// only clusters with backups to object storage, or with monitoring, need
// them.
var (
	cnpgGroupVersion = "postgresql.cnpg.io/v1"
	cnpgResources    = []string{"clusters", "databases", "databaseroles", "poolers", "scheduledbackups"}
)

// apis is what discovery says is installed.
type apis struct {
	// missingCNPG lists the required CNPG resources the API server does
	// not serve; empty when CloudNativePG is installed.
	missingCNPG []string
	// missing are the optional APIs not served, by CRD name.
	missing map[string]bool
}

// served reports whether the optional API o is served.
func (a apis) served(o informers.OptionalAPI) bool { return !a.missing[o.CRD()] }

func (a apis) cnpgInstalled() bool { return len(a.missingCNPG) == 0 }

// notReadyReason is /readyz's message while CNPG's CRDs are missing.
func (a apis) notReadyReason() string {
	if a.cnpgInstalled() {
		return ""
	}
	return fmt.Sprintf("CloudNativePG is not installed: the API server does not serve %s %s (install CloudNativePG 1.30 or later; setpoint starts once its CRDs appear)",
		cnpgGroupVersion, strings.Join(a.missingCNPG, ", "))
}

func (a apis) equal(b apis) bool {
	return slices.Equal(a.missingCNPG, b.missingCNPG) && maps.Equal(a.missing, b.missing)
}

// discoverer is the part of discovery.DiscoveryInterface we use.
type discoverer interface {
	ServerResourcesForGroupVersion(groupVersion string) (*metav1.APIResourceList, error)
}

var _ discoverer = discovery.DiscoveryInterface(nil)

// discoverAPIs asks the API server which of CNPG's CRDs and of the
// optional ones it serves. Discovery needs no RBAC rule: every
// authenticated user may read it.
func discoverAPIs(disc discoverer, optional []informers.OptionalAPI) (apis, error) {
	cnpg, err := servedResources(disc, cnpgGroupVersion)
	if err != nil {
		return apis{}, err
	}
	a := apis{missing: map[string]bool{}}
	for _, r := range cnpgResources {
		if !cnpg[r] {
			a.missingCNPG = append(a.missingCNPG, r)
		}
	}
	for _, o := range optional {
		served, err := servedResources(disc, o.GroupVersion())
		if err != nil {
			return apis{}, err
		}
		if !served[o.Resource] {
			a.missing[o.CRD()] = true
		}
	}
	return a, nil
}

// servedResources returns the resources of a group version; none when the
// group version is not served at all.
func servedResources(disc discoverer, gv string) (map[string]bool, error) {
	list, err := disc.ServerResourcesForGroupVersion(gv)
	if apierrors.IsNotFound(err) {
		return map[string]bool{}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("discover %s: %w", gv, err)
	}
	out := make(map[string]bool, len(list.APIResources))
	for _, r := range list.APIResources {
		out[r.Name] = true
	}
	return out, nil
}

// apiWatcher polls discovery for the life of the process and publishes
// changes. While CNPG is missing it polls with backoff (first retry after
// minInterval, doubling up to maxInterval); once it is installed, every
// maxInterval, so an uninstalled or newly installed barman-cloud plugin or
// Prometheus Operator is noticed without a restart.
type apiWatcher struct {
	disc        discoverer
	optional    []informers.OptionalAPI
	minInterval time.Duration
	maxInterval time.Duration

	mu      sync.Mutex
	current apis
	known   bool
	changed chan struct{} // closed and replaced on every change
}

func newAPIWatcher(disc discoverer) *apiWatcher {
	return &apiWatcher{disc: disc, optional: cluster.OptionalAPIs(), minInterval: time.Second, maxInterval: 30 * time.Second, changed: make(chan struct{})}
}

// state returns the last discovery result, whether there is one yet, and a
// channel closed at the next change.
func (w *apiWatcher) state() (apis, bool, <-chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.current, w.known, w.changed
}

// run polls until ctx ends. It logs transitions only: a missing CRD is
// reported once, not at every poll.
func (w *apiWatcher) run(ctx context.Context) {
	logger := klog.FromContext(ctx)
	interval := w.minInterval
	lastErr := ""
	for {
		a, err := discoverAPIs(w.disc, w.optional)
		switch {
		case err != nil:
			if err.Error() != lastErr {
				logger.Error(err, "API discovery failed; retrying with backoff")
				lastErr = err.Error()
			}
		default:
			lastErr = ""
			w.publish(logger, a)
		}
		if err == nil && a.cnpgInstalled() {
			interval = w.maxInterval
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(interval):
		}
		interval = min(2*interval, w.maxInterval)
	}
}

func (w *apiWatcher) publish(logger klog.Logger, a apis) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.known && w.current.equal(a) {
		return
	}
	prev, first := w.current, !w.known
	w.current, w.known = a, true
	close(w.changed)
	w.changed = make(chan struct{})
	switch {
	case !a.cnpgInstalled() && (first || prev.cnpgInstalled()):
		// Once per outage: the CRDs arrive one by one, and each arrival
		// is progress, not news (it shows at -v=2).
		logger.Info("Waiting for CloudNativePG: its CRDs are not installed; no controller runs until they are",
			"groupVersion", cnpgGroupVersion, "missing", a.missingCNPG)
	case !a.cnpgInstalled():
		logger.V(2).Info("Still waiting for CloudNativePG's CRDs", "missing", a.missingCNPG)
	case first || !prev.cnpgInstalled():
		logger.Info("CloudNativePG CRDs found", "groupVersion", cnpgGroupVersion)
	}
	for _, o := range w.optional {
		switch {
		case a.cnpgInstalled() && !a.served(o) && (first || prev.served(o) || !prev.cnpgInstalled()):
			logger.Info(fmt.Sprintf("The %s is not installed (CRD %s missing): %s", o.Project, o.CRD(), o.Without))
		case a.served(o) && !first && !prev.served(o):
			logger.Info(fmt.Sprintf("The %s's %s CRD appeared", o.Project, o.Kind))
		}
	}
}
