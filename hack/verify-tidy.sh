#!/usr/bin/env bash
# Fails when go.mod or go.sum of any module in the repository is not what
# `go mod tidy` would write. `go mod tidy -diff` prints the change and exits
# non-zero without touching the tree, so a dirty checkout stays as it is.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GO=${GO:-go}

status=0
for mod in . hack/tools test/controlplane test/controlplane/cnpg test/controlplane/coredns test/controlplane/barmancloud; do
  if ! (cd "$ROOT/$mod" && "$GO" mod tidy -diff); then
    echo "$mod: go.mod/go.sum are not tidy: run 'go mod tidy' in $mod" >&2
    status=1
  fi
done
exit "$status"
