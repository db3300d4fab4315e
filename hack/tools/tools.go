//go:build tools

// Package tools pins controller-gen for `make manifests`, and the
// Prometheus Operator's API types from which it generates the PodMonitor
// CRD the tests install (setpoint does not ship it: it is a prerequisite).
package tools

import (
	_ "github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1"
	_ "sigs.k8s.io/controller-tools/cmd/controller-gen"
)
