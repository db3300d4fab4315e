package cluster

import "github.com/setpoint-dev/setpoint/pkg/controller/caches"

// needsAPI is a component that needs another project's CRD, and works
// (or says why it waits) without it.
type needsAPI interface {
	API() caches.OptionalAPI
}

// OptionalAPIs are the CRDs the components need where they are installed:
// the operator discovers which are served (caches.Informers.SetMissing).
func OptionalAPIs() []caches.OptionalAPI {
	var out []caches.OptionalAPI
	for _, c := range components() {
		if n, ok := c.(needsAPI); ok {
			out = append(out, n.API())
		}
	}
	return out
}
