// Package nodeimages builds the container images the real one-node
// Kubernetes of the tests (test/node) runs, without a container runtime or
// a registry: pause, CloudNativePG's operator, PostgreSQL 15 (the host's
// Debian 12) and 17 (Debian 13's packages), PgBouncer, CoreDNS, the
// barman-cloud plugin and its sidecar, and the S3 store. Each is one layer
// in an OCI image-layout archive that `ctr -n k8s.io images import` reads.
//
// An archive's file name holds a hash of the image's inputs (module go.sum
// files, Debian package versions, this package's own source), so a build
// whose inputs did not change finds its archive and does nothing. Archives
// are reproducible: sorted tar entries, a fixed modification time, fixed
// owners and modes, binaries built with -trimpath and no build ID.
package nodeimages
