#!/usr/bin/env bash
# Regenerates the CRDs in manifests/crd from the markers in
# pkg/apis/postgres with controller-gen, pinned in the separate hack/tools
# module so it never enters the operator's build.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$ROOT"
CONTROLLER_GEN=${CONTROLLER_GEN:-$ROOT/bin/controller-gen}
if [ ! -x "$CONTROLLER_GEN" ]; then
  (cd hack/tools && go build -o "$CONTROLLER_GEN" sigs.k8s.io/controller-tools/cmd/controller-gen)
fi
rm -f manifests/crd/*.yaml
"$CONTROLLER_GEN" crd paths=./pkg/apis/postgres/... output:crd:dir=./manifests/crd

# The Prometheus Operator's PodMonitor CRD, which setpoint needs but does not
# ship (it comes with the Prometheus Operator). Generated from the upstream
# API types pinned in hack/tools, without descriptions, for test/envtest to
# install: our PodMonitors are then checked against its real schema.
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
(cd hack/tools && "$CONTROLLER_GEN" crd:maxDescLen=0 \
  paths=github.com/prometheus-operator/prometheus-operator/pkg/apis/monitoring/v1 output:crd:dir="$tmp")
mkdir -p test/envtest/crds
cp "$tmp/monitoring.coreos.com_podmonitors.yaml" test/envtest/crds/

# The Helm chart ships the same CRDs in files/crds, which its
# templates/crds.yaml renders (with crds.create), so `helm upgrade`
# upgrades them (Helm never upgrades a chart's crds/ directory).
rm -f charts/setpoint/files/crds/*.yaml
mkdir -p charts/setpoint/files/crds
cp manifests/crd/*.yaml charts/setpoint/files/crds/

# The RBAC rules, written once in hack/tools/rbac/rules.go, into the
# install manifest (manifests/rbac), the namespace-scoped overlay
# (overlays/namespaced) and the chart (charts/setpoint/templates/_rbac.tpl).
(cd hack/tools && go run ./cmd/rbac -root "$ROOT")
