#!/usr/bin/env bash
# Regenerates code, CRDs and RBAC (hack/tools/rbac) into a temporary copy of
# the tree and fails when they differ from what is committed.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

tar -C "$ROOT" --exclude=./.git --exclude=./bin -cf - . | tar -C "$TMP" -xf -
mkdir -p "$TMP/bin"
[ -x "$ROOT/bin/controller-gen" ] && cp "$ROOT/bin/controller-gen" "$TMP/bin/"
(cd "$TMP" && hack/update-codegen.sh >/dev/null && hack/update-manifests.sh)

status=0
for dir in pkg manifests charts/setpoint/files/crds charts/setpoint/templates overlays test/envtest/crds hack/api-rule-violations.list; do
  if ! diff -ruN "$ROOT/$dir" "$TMP/$dir"; then
    status=1
  fi
done
if [ "$status" != 0 ]; then
  echo "generated files are out of date: run 'make generate'" >&2
fi
exit "$status"
