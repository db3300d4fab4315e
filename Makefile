# setpoint — a Postgres operator on plain client-go, driving CloudNativePG.
SHELL := /usr/bin/env bash
BIN := $(CURDIR)/bin
GO ?= go
CONTROLPLANE_BINS := $(BIN)/etcd $(BIN)/kube-apiserver $(BIN)/kube-controller-manager

.PHONY: all generate manifests verify build test unit lint controlplane postgres demo bench clean

all: build

## generate: regenerate clients, deepcopy, OpenAPI and the CRDs
generate:
	hack/update-codegen.sh
	hack/update-manifests.sh

## manifests: regenerate only the CRDs in manifests/crd
manifests:
	hack/update-manifests.sh

## verify: fail when generated code or CRDs are stale, or lint fails
verify: lint
	hack/verify-codegen.sh

## build: compile every package of the operator's module
build:
	$(GO) build ./...

## lint: go vet and a gofmt check
lint:
	$(GO) vet ./...
	@out=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^test/controlplane/')); \
	  if [ -n "$$out" ]; then echo "gofmt needed:"; echo "$$out"; exit 1; fi

## controlplane: build etcd, kube-apiserver, kube-controller-manager (only when pins change)
controlplane: $(CONTROLPLANE_BINS)

$(BIN)/etcd: test/controlplane/go.mod test/controlplane/go.sum
	cd test/controlplane && $(GO) build -o $@ go.etcd.io/etcd/server/v3

$(BIN)/kube-apiserver: test/controlplane/go.mod test/controlplane/go.sum
	cd test/controlplane && $(GO) build -o $@ k8s.io/kubernetes/cmd/kube-apiserver

$(BIN)/kube-controller-manager: test/controlplane/go.mod test/controlplane/go.sum
	cd test/controlplane && $(GO) build -o $@ k8s.io/kubernetes/cmd/kube-controller-manager

## postgres: install PostgreSQL's server binaries when missing
postgres:
	hack/ensure-postgres.sh

## test: unit tests, then the integration tests on a real control plane
test: controlplane postgres
	SETPOINT_REQUIRE_CONTROLPLANE=1 SETPOINT_BIN_DIR=$(BIN) $(GO) test -count=1 -timeout 40m ./...

## unit: only the tests that need no control plane
unit:
	$(GO) test -count=1 ./pkg/...

## demo: the local sandbox (control plane, CNPG stand-in, real Postgres) with the operator and the samples
demo: controlplane postgres
	$(GO) run ./test/sandbox -demo

## bench: convergence, cost, memory and failover figures (prints a table, writes bench.json; ≈8 min)
bench: controlplane postgres
	SETPOINT_BIN_DIR=$(BIN) $(GO) run ./test/bench $(BENCH_FLAGS)

clean:
	rm -rf $(BIN)
