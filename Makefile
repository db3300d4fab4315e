# setpoint — a Postgres operator on plain client-go, driving CloudNativePG.
SHELL := /usr/bin/env bash
BIN := $(CURDIR)/bin
GO ?= go
CONTROLPLANE_BINS := $(BIN)/etcd $(BIN)/kube-apiserver $(BIN)/kube-controller-manager $(BIN)/cnpg-manager
NODE_BINS := $(BIN)/kubelet $(BIN)/kube-scheduler $(BIN)/kube-proxy

.PHONY: all generate manifests docs verify build test unit lint controlplane postgres node node-packages node-images node-smoke release-test release-previous test-real demo bench image release clean

# Image and release inputs. VERSION defaults to the nearest v* tag (else
# v0.0.0-<commit>), with -dirty when the work tree has changes; the commit
# time is the image's creation time, so a commit always gives one digest.
VERSION ?= $(shell v=$$(git describe --tags --match 'v*' 2>/dev/null || echo v0.0.0-$$(git rev-parse --short=12 HEAD)); \
  git diff --quiet HEAD 2>/dev/null || v=$$v-dirty; echo $$v)
IMAGE_REPO ?= ghcr.io/setpoint-dev/setpoint
IMAGE_FLAGS = -root $(CURDIR) -out $(CURDIR)/dist -repository $(IMAGE_REPO) -version $(VERSION) \
  -commit $$(git rev-parse HEAD) -created $$(git log -1 --format=%ct)

all: build

## generate: regenerate clients, deepcopy, OpenAPI, the CRDs and the RBAC rules (manifest, chart, namespaced overlay)
generate:
	hack/update-codegen.sh
	hack/update-manifests.sh

## manifests: regenerate only the CRDs and the RBAC rules (from hack/tools/rbac/rules.go)
manifests:
	hack/update-manifests.sh

## docs: regenerate the references in docs/reference from the code (the status reasons and conditions), and the plugin's advice per reason from the same comments
docs:
	hack/update-docs.sh

## verify: fail when generated code, CRDs or references are stale, a doc link, the layout page or a getting-started command is unchecked (test/doccheck), a go.mod is untidy, controller-runtime or k8s.io/kubernetes creeps in, or lint fails
verify: lint
	hack/verify-codegen.sh
	hack/verify-docs.sh
	hack/verify-tidy.sh
	hack/verify-deps.sh

## build: compile every package of the operator's module
build:
	$(GO) build ./...

## lint: go vet and a gofmt check
lint:
	$(GO) vet ./...
	cd hack/tools && $(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^test/controlplane/')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## controlplane: build etcd, kube-apiserver, kube-controller-manager, CNPG's manager (only when pins change)
controlplane: $(CONTROLPLANE_BINS)

$(BIN)/etcd: test/controlplane/go.mod test/controlplane/go.sum
	cd test/controlplane && $(GO) build -o $@ go.etcd.io/etcd/server/v3

$(BIN)/kube-apiserver: test/controlplane/go.mod test/controlplane/go.sum
	cd test/controlplane && $(GO) build -o $@ k8s.io/kubernetes/cmd/kube-apiserver

$(BIN)/kube-controller-manager: test/controlplane/go.mod test/controlplane/go.sum
	cd test/controlplane && $(GO) build -o $@ k8s.io/kubernetes/cmd/kube-controller-manager

# CNPG's manager (its admission webhooks judge every CNPG object in tests) is a
# module of its own: CNPG v1.30.0 builds against k8s.io/* v0.36, not v0.37.2.
$(BIN)/cnpg-manager: test/controlplane/cnpg/go.mod test/controlplane/cnpg/go.sum
	cd test/controlplane/cnpg && $(GO) build -o $@ github.com/cloudnative-pg/cloudnative-pg/cmd/manager

## node: the real test node's binaries (kubelet, kube-scheduler, kube-proxy; kubelet builds ≈10 min cold), Debian packages and images
node: controlplane $(NODE_BINS) node-packages node-images

$(BIN)/kubelet: test/controlplane/go.mod test/controlplane/go.sum
	cd test/controlplane && $(GO) build -o $@ k8s.io/kubernetes/cmd/kubelet

$(BIN)/kube-scheduler: test/controlplane/go.mod test/controlplane/go.sum
	cd test/controlplane && $(GO) build -o $@ k8s.io/kubernetes/cmd/kube-scheduler

$(BIN)/kube-proxy: test/controlplane/go.mod test/controlplane/go.sum
	cd test/controlplane && $(GO) build -o $@ k8s.io/kubernetes/cmd/kube-proxy

## node-packages: install containerd, runc, the CNI plugins and the network tools when missing
node-packages:
	hack/ensure-node.sh

## node-images: the node's images (pause, CNPG 1.30.0, PostgreSQL 15 and 17, PgBouncer 1.24, CoreDNS, the barman-cloud plugin and its sidecar, the S3 store) as OCI archives in bin/images with images.json; only what changed is rebuilt
node-images: postgres node-packages
	cd hack/tools && $(GO) run ./cmd/nodeimages -root $(CURDIR) -bin-dir $(BIN) $(NODE_IMAGES_FLAGS)

## node-smoke: bring the real test node up (containerd + kubelet in a private network namespace), wait for the Node to be Ready, tear down, check the host (root)
node-smoke: node
	$(GO) build -o $(BIN)/nodesmoke ./test/node/cmd/nodesmoke
	$(BIN)/nodesmoke -bin-dir $(BIN) $(NODE_SMOKE_FLAGS)

# release-test waits for the host's node lock (test/node/hostlock.go): a
# real-tier run reads bin/release while its node runs.
## release-test: a release of the work tree (install.yaml and image archives) into bin/release, for the real-CNPG tier
release-test:
	flock $${TMPDIR:-/tmp}/setpoint-node.lock sh -c 'rm -rf $(BIN)/release && cd hack/tools && $(GO) run ./cmd/release -root $(CURDIR) -out $(BIN)/release -repository $(IMAGE_REPO) -version $(VERSION) \
	  -commit $$(git rev-parse HEAD) -created $$(git log -1 --format=%ct)'

## release-previous: the release of PREVIOUS_RELEASE, the setpoint before tenant isolation and the client CA, which the real tier's upgrade test starts from; built once per commit into bin/release-previous
PREVIOUS_RELEASE ?= 3c81cf9
release-previous:
	@if [ "$$(cat $(BIN)/release-previous/commit 2>/dev/null)" != "$(PREVIOUS_RELEASE)" ]; then \
	  set -e; rm -rf $(BIN)/release-previous; mkdir -p $(BIN)/release-previous/src; \
	  git archive $(PREVIOUS_RELEASE) | tar -x -C $(BIN)/release-previous/src; \
	  cd $(BIN)/release-previous/src/hack/tools && $(GO) run ./cmd/release -root $(BIN)/release-previous/src \
	    -out $(BIN)/release-previous/release -repository $(IMAGE_REPO) -version v0.0.0-$(PREVIOUS_RELEASE) \
	    -commit $$(git -C $(CURDIR) rev-parse $(PREVIOUS_RELEASE)) -created $$(git -C $(CURDIR) log -1 --format=%ct $(PREVIOUS_RELEASE)); \
	  rm -rf $(BIN)/release-previous/src; echo $(PREVIOUS_RELEASE) > $(BIN)/release-previous/commit; \
	fi

## test-real: the real-CNPG tier (test/realcnpg): real CloudNativePG and setpoint's release on a real one-node Kubernetes (root)
test-real: node node-images release-test release-previous
	SETPOINT_REQUIRE_CONTROLPLANE=1 SETPOINT_BIN_DIR=$(BIN) $(GO) test -count=1 -timeout 45m -v ./test/realcnpg

## postgres: install PostgreSQL's server binaries when missing
postgres:
	hack/ensure-postgres.sh

## test: unit tests, the integration tests on a real control plane, and the real-CNPG tier on a real node (root)
test: controlplane postgres node release-test release-previous
	SETPOINT_REQUIRE_CONTROLPLANE=1 SETPOINT_BIN_DIR=$(BIN) $(GO) test -count=1 -timeout 55m ./...
	cd hack/tools && SETPOINT_NODE_IMAGES=$(BIN)/images/images.json $(GO) test -count=1 -timeout 20m ./...

## unit: only the tests that need no control plane (-short: test/cnpgsim runs its pure tests, skips the rest)
unit:
	$(GO) test -count=1 -short ./pkg/... ./test/cnpgsim ./test/promsample ./test/doccheck

## demo: the local sandbox (control plane, CNPG stand-in, real Postgres) with the operator and the samples; CNPG=real: on real CloudNativePG (root)
# Built, not `go run`: go run exits 1 after an interrupt even when the
# program stops cleanly, and Ctrl-C must end the demo with status 0.
# CNPG=real runs it on real CloudNativePG instead: the real-CNPG tier's
# one-node Kubernetes with setpoint's release in-cluster (root).
CNPG ?= standin
ifeq ($(CNPG),real)
DEMO_NEEDS = node node-images release-test
else
DEMO_NEEDS = controlplane postgres
endif
demo: $(DEMO_NEEDS)
	$(GO) build -o $(BIN)/sandbox ./test/sandbox
	SETPOINT_BIN_DIR=$(BIN) $(BIN)/sandbox -demo -cnpg $(CNPG) $(DEMO_FLAGS)

## bench: convergence, cost, memory, latency against its floor and failover figures (prints a table, writes bench.json; ≈10 min a run; BENCH_RUNS=3: medians of 3 separate runs)
BENCH_RUNS ?= 1
bench: controlplane postgres
	SETPOINT_BIN_DIR=$(BIN) $(GO) run ./test/bench -runs $(BENCH_RUNS) $(BENCH_FLAGS)

## image: the operator's image (linux/amd64 + linux/arm64), built without a container runtime, into dist/
image:
	cd hack/tools && $(GO) run ./cmd/image $(IMAGE_FLAGS)

## release: dist/install.yaml pinned to the image's tag and digest, the image archives, the kubectl plugin's archives and krew manifest, SHA256SUMS (VERSION=v0.2.0)
release:
	cd hack/tools && $(GO) run ./cmd/release $(IMAGE_FLAGS)

clean:
	rm -rf $(BIN) dist
