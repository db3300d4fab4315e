// Package imagebuild builds setpoint's container image without a container
// runtime: a static cmd/setpoint binary for each platform, one layer
// holding it (plus /etc/passwd and /etc/group naming the nonroot user),
// assembled with go-containerregistry into an OCI image index.
//
// The build is reproducible: the same commit, built by the same Go
// toolchain, gives the same index digest. Every input that could vary is
// pinned: the binary is built with -trimpath and no VCS stamping or build
// ID; tar entries are sorted, owned by root with fixed modes and the commit
// time as their modification time; the image's creation time is the
// commit time; gzip runs at a fixed level.
package imagebuild
