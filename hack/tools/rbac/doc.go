// Package rbac holds setpoint's RBAC rules once (rules.go) and renders
// them into every copy that ships: the install manifest's roles
// (manifests/rbac), the namespace-scoped overlay's (overlays/namespaced)
// and the Helm chart's rule lists (charts/setpoint/templates/_rbac.tpl).
// `go run ./cmd/rbac` writes the files (hack/update-manifests.sh, so
// `make generate`); hack/verify-codegen.sh and this package's test fail
// when one differs from what the rules render.
package rbac
