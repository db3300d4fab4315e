#!/usr/bin/env bash
# Guards the design card: setpoint runs on plain client-go, so no package of
# sigs.k8s.io/controller-runtime may be compiled into the operator's module
# (its tests included), and k8s.io/kubernetes (which only test/controlplane,
# a module of its own, builds) and github.com/prometheus/prometheus (which
# hack/tools holds) must stay out of the operator's module graph.
set -o errexit -o nounset -o pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
GO=${GO:-go}
cd "$ROOT"

status=0
pkgs=$("$GO" list -deps -test ./...)
# A list without client-go means go list printed something else: fail
# rather than pass on an empty answer.
if ! grep -qx 'k8s.io/client-go/tools/cache' <<<"$pkgs"; then
  echo "go list -deps ./... does not list k8s.io/client-go/tools/cache: cannot check the dependencies" >&2
  exit 1
fi
if found=$(grep '^sigs\.k8s\.io/controller-runtime\(/\|$\)' <<<"$pkgs"); then
  echo "sigs.k8s.io/controller-runtime is compiled into the operator's module (go list -deps -test ./...):" >&2
  echo "$found" >&2
  echo "run 'go mod why -m sigs.k8s.io/controller-runtime' to see which import brings it" >&2
  status=1
fi
mods=$("$GO" list -m all)
if found=$(grep '^k8s\.io/kubernetes\( \|$\)' <<<"$mods"); then
  echo "k8s.io/kubernetes is in the operator's module graph ($found): it belongs only in test/controlplane" >&2
  echo "run 'go mod graph | grep k8s.io/kubernetes' to see which requirement brings it" >&2
  status=1
fi
# Prometheus itself (its rule parser and promql engine test the alerts) is
# a heavy graph: it lives in hack/tools, never in the operator's module.
if found=$(grep '^github\.com/prometheus/prometheus\( \|$\)' <<<"$mods"); then
  echo "github.com/prometheus/prometheus is in the operator's module graph ($found): it belongs only in hack/tools" >&2
  status=1
fi
exit "$status"
