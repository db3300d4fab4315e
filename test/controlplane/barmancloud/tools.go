//go:build tools

// Package barmancloud pins the barman-cloud plugin of CloudNativePG, whose
// manager `make node-images` builds into the plugin's image and its
// instance sidecar's. It is a module of its own: the plugin builds against
// its own k8s.io/* and controller-runtime versions, which must not move
// the operator's or CNPG's.
package barmancloud

import (
	_ "github.com/cloudnative-pg/plugin-barman-cloud/cmd/manager"
)
