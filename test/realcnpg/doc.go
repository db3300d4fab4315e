// Package realcnpg is the real-CloudNativePG tier: it installs the real
// CNPG operator (its own release manifest, the operator, instance manager
// and PgBouncer from locally built images) and setpoint (dist/install.yaml
// and its image) on a real one-node Kubernetes (test/node), and its tests
// run setpoint's flows against them. Where the stand-in (test/cnpgsim)
// models CNPG, these tests hold the model to the real thing.
//
// It needs root, the binaries of `make node`, the images of
// `make node-images` and a release directory of `make release`; without
// them the package fails with one line (or says SKIPPED when asked to, see
// envtest.SkipEnv).
package realcnpg
