package cluster

import "github.com/setpoint-dev/setpoint/pkg/controller/informers"

// needsAPI is a component that needs another project's CRD, and works
// (or says why it waits) without it.
type needsAPI interface {
	API() informers.OptionalAPI
}

// OptionalAPIs are the CRDs the components need where they are installed:
// the operator discovers which are served (informers.Informers.SetMissing).
func OptionalAPIs() []informers.OptionalAPI {
	var out []informers.OptionalAPI
	for _, c := range components() {
		if n, ok := c.(needsAPI); ok {
			out = append(out, n.API())
		}
	}
	return out
}
