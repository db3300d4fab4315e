package informers

import (
	"fmt"

	"k8s.io/client-go/tools/cache"
)

// An OptionalAPI is another project's CRD that setpoint uses where it is
// installed and does without where it is not: a cluster that needs it
// waits, and says why. Without the CRD its informer would never sync and
// would hold every controller back, so none is started (the lister reads
// an empty cache: nothing exists that setpoint could own). The operator
// asks discovery which optional APIs are served and restarts its
// controllers when that changes. The component that needs one declares it.
type OptionalAPI struct {
	// Project installs the CRD: "Prometheus Operator".
	Project                        string
	Group, Version, Resource, Kind string
	// Without says what clusters that need it do while it is missing (for
	// the operator's log).
	Without string
}

// GroupVersion is the API's group version, as discovery names it.
func (a OptionalAPI) GroupVersion() string { return a.Group + "/" + a.Version }

// CRD is the name of the API's CustomResourceDefinition.
func (a OptionalAPI) CRD() string { return a.Resource + "." + a.Group }

// Missing is the message of a cluster that needs the API while it is not
// installed.
func (a OptionalAPI) Missing() string {
	return fmt.Sprintf("the %s is not installed (CRD %s missing)", a.Project, a.CRD())
}

// SetMissing records, before the controllers are built, that the API
// server does not serve a.
func (i *Informers) SetMissing(a OptionalAPI) {
	if i.missing == nil {
		i.missing = map[string]bool{}
	}
	i.missing[a.CRD()] = true
}

// Served reports whether a is served (as far as discovery said when the
// informers were built).
func (i *Informers) Served(a OptionalAPI) bool { return !i.missing[a.CRD()] }

// EmptyIndexer is the cache of an API that is not served.
func EmptyIndexer() cache.Indexer {
	return cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
}
