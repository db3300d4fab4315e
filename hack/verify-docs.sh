#!/usr/bin/env bash
# Regenerates the generated references into a temporary folder and fails
# when any differs from what docs/reference holds as committed (likewise
# the plugin's advice table, pkg/kubectl/inspect/zz_generated.advice.go,
# generated from the same comments as reasons.md); then runs
# the documentation checks (test/doccheck: links and anchors, the layout
# page, the getting-started page's sh blocks).
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

mkdir "$TMP/reference"
"$ROOT/hack/update-docs.sh" "$TMP/reference" "$TMP/zz_generated.advice.go"

status=0
for page in "$TMP/reference"/*; do
  if ! diff -u "$ROOT/docs/reference/$(basename "$page")" "$page"; then
    status=1
  fi
done
if ! diff -u "$ROOT/pkg/kubectl/inspect/zz_generated.advice.go" "$TMP/zz_generated.advice.go"; then
  status=1
fi
if [ "$status" != 0 ]; then
  echo "generated references in docs/reference or the plugin's advice table are out of date: run 'make docs'" >&2
fi

if ! (cd "$ROOT" && go test -count=1 ./test/doccheck); then
  echo "documentation checks failed (test/doccheck; see docs/development/testing.md)" >&2
  status=1
fi
exit "$status"
