//go:build tools

// Package coredns pins CoreDNS, the cluster DNS of the real test node
// (test/node): `make node-images` builds it static into the coredns image.
// It is a module of its own so that CoreDNS's dependency graph (cloud SDKs,
// gRPC, its own k8s.io/* versions) never meets the control plane's pins.
package coredns

import (
	_ "github.com/coredns/coredns"
)
