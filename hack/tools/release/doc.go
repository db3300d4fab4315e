// Package release makes a setpoint release in a directory: the image
// archives (package imagebuild), install.yaml rendered from manifests/ by
// kustomize's own Go API with the image pinned by tag and digest, the
// kubectl plugin's archives with a krew manifest, and SHA256SUMS of them
// all.
package release
