//go:build tools

// Package cnpg pins CloudNativePG's manager, whose admission webhooks the
// integration tests run (`make controlplane` builds it into bin/cnpg-manager).
// It is a module of its own, apart from test/controlplane: CNPG v1.30.0 is
// built against k8s.io/* v0.36 and does not compile against the v0.37.2
// staging modules kube-apiserver is pinned to.
package cnpg

import (
	_ "github.com/cloudnative-pg/cloudnative-pg/cmd/manager"
)
