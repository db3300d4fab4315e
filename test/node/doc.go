// Package node runs a real one-node Kubernetes for tests: etcd,
// kube-apiserver, kube-controller-manager and kube-scheduler, containerd
// (from Debian) and kubelet, all inside a network namespace it creates
// (`ip netns add`), so that real Pods run where the host never gets a route
// or an interface into them. The processes join that namespace with
// `nsenter --net` but stay in the host's mount namespace, so that the
// secret and tmpfs mounts kubelet makes are seen by containerd and runc.
//
// What it changes on the host it gives back on every exit path, a signal
// included: kubelet's host-global sysctls are saved before and restored
// after, its cgroups and mounts are removed, the namespace is deleted and
// every process it started is stopped by its PID.
//
// The host reaches the API server through a loopback bridge (Node.Config,
// Node.KubeconfigPath). See ../shared/design/real-cnpg.md for the facts it
// is built on. `make node-smoke` checks it end to end; it needs root, the
// binaries of `make node` and the packages of hack/ensure-node.sh, so no
// `go test` of the main module runs it.
package node
