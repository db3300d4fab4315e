// Package chart renders, lints and packages setpoint's Helm chart
// (charts/setpoint) with Helm's own Go SDK, which is pinned here, in the
// tools module, and never enters the operator's build. Its tests hold the
// chart to the release's install.yaml: with default values both install
// the same objects.
package chart
