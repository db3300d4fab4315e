#!/usr/bin/env bash
# Regenerates deepcopy, register, OpenAPI, clientset, listers, informers and
# apply configurations from the types in pkg/apis, with kube_codegen.sh from
# the code-generator version pinned in go.mod. Never hand-edit the output.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
MODULE=github.com/setpoint-dev/setpoint
BOILERPLATE="$ROOT/hack/boilerplate.go.txt"

cd "$ROOT"
# On a fresh module cache go list names no directory until the module is
# downloaded.
go mod download k8s.io/code-generator
CODEGEN_PKG=$(go list -m -f '{{.Dir}}' k8s.io/code-generator)
# shellcheck source=/dev/null
source "$CODEGEN_PKG/kube_codegen.sh"

kube::codegen::gen_helpers --boilerplate "$BOILERPLATE" "$ROOT/pkg/apis"
kube::codegen::gen_register --boilerplate "$BOILERPLATE" "$ROOT/pkg/apis"

# The OpenAPI definitions only feed the apply-configuration schema below;
# known rule violations of upstream types are recorded, new ones fail.
kube::codegen::gen_openapi \
  --output-dir "$ROOT/pkg/generated/openapi" \
  --output-pkg "$MODULE/pkg/generated/openapi" \
  --extra-pkgs k8s.io/api/core/v1 \
  --report-filename "$ROOT/hack/api-rule-violations.list" \
  --update-report \
  --boilerplate "$BOILERPLATE" \
  "$ROOT/pkg/apis"

schema=$(mktemp)
trap 'rm -f "$schema"' EXIT
go run ./hack/openapi-schema >"$schema"

kube::codegen::gen_client \
  --with-watch \
  --with-applyconfig \
  --applyconfig-openapi-schema "$schema" \
  --applyconfig-externals "k8s.io/api/core/v1.ResourceRequirements:k8s.io/client-go/applyconfigurations/core/v1" \
  --output-dir "$ROOT/pkg/generated" \
  --output-pkg "$MODULE/pkg/generated" \
  --boilerplate "$BOILERPLATE" \
  "$ROOT/pkg/apis"
