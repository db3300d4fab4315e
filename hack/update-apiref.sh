#!/usr/bin/env bash
# Renders the API reference from the types and their comments, by
# crd-ref-docs (pinned in the tools module):
#   hack/update-apiref.sh [SOURCE_DIR] [OUTPUT_FILE]
# defaults: pkg/apis/postgres/v1alpha1 and docs/reference/api.md.
# hack/update-docs.sh calls it; hack/tools/apiref's test calls it on a
# copy of the types with one comment changed, to prove a changed comment
# shows in the reference (and so makes `make verify` fail until `make docs`).
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GO=${GO:-go}
SRC=$(realpath "${1:-$ROOT/pkg/apis/postgres/v1alpha1}")
OUT=$(realpath -m "${2:-$ROOT/docs/reference/api.md}")

cd "$ROOT/hack/tools"
"$GO" run github.com/elastic/crd-ref-docs --source-path="$SRC" \
  --config="$ROOT/hack/crd-ref-docs.yaml" --renderer=markdown --output-path="$OUT" >/dev/null 2>&1
