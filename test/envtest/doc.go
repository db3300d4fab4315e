// Package envtest runs a real Kubernetes control plane for tests: etcd,
// kube-apiserver (RBAC, token auth, generated certificates) and
// kube-controller-manager (garbage collector and namespace controllers),
// all on loopback ports, with setpoint's CRDs and CloudNativePG's real CRDs
// installed. It is our own small take on controller-runtime's envtest,
// which the design card keeps out of the build.
//
// The binaries come from the separate test/controlplane module
// (`make controlplane` puts them in bin/). Start one Environment per test
// package, from TestMain, through RunMain: start-up costs seconds.
package envtest
