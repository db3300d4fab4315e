//go:build tools

// Package tools pins controller-gen for `make manifests`, the Prometheus
// Operator's API types from which it generates the PodMonitor CRD the
// tests install (setpoint does not ship it: it is a prerequisite), and
// crd-ref-docs, which renders docs/reference/api.md for `make docs`.
package tools

import (
	_ "github.com/elastic/crd-ref-docs"
	_ "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
