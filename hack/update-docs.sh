#!/usr/bin/env bash
# Writes the generated references into docs/reference, or into the folder
# given as the first argument, and the kubectl plugin's table of what to do
# per reason into pkg/kubectl/inspect/zz_generated.advice.go, or into the
# file given as the second (hack/verify-docs.sh passes temporary ones).
# Each is generated from the code itself, never written by hand.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GO=${GO:-go}
OUT=${1:-$ROOT/docs/reference}
ADVICE=${2:-$ROOT/pkg/kubectl/inspect/zz_generated.advice.go}

mkdir -p "$OUT"
cd "$ROOT"
# The reasons, and the plugin's advice, from the same constants' comments.
"$GO" run ./hack/reasonsdoc -api pkg/apis/postgres/v1alpha1 -out "$OUT/reasons.md" -advice "$ADVICE"
# The operator's flags, from its real flag set (a test of cmd/setpoint,
# which also fails on a stale page when run without SETPOINT_DOCS_OUT).
SETPOINT_DOCS_OUT="$OUT" "$GO" test -count=1 -run '^TestFlagsReference$' ./cmd/setpoint >/dev/null
# The metrics, from their registration (a test of pkg/operator, likewise).
SETPOINT_DOCS_OUT="$OUT" "$GO" test -count=1 -run '^TestMetricsReference$' ./pkg/operator >/dev/null
# The API reference, from the types and their comments.
"$ROOT/hack/update-apiref.sh" "$ROOT/pkg/apis/postgres/v1alpha1" "$OUT/api.md"
