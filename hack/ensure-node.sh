#!/usr/bin/env bash
# Makes sure the Debian packages the real test node (test/node) runs are
# installed: containerd, runc, the CNI plugins, the network tools
# kubelet, kube-proxy and the CNI plugins call (ip, iptables, conntrack),
# and busybox-static, the shell of the PostgreSQL image (make node-images).
# Installs what is missing (needs root, as on CI and the dev machines), and
# never lets apt start a system containerd: the node starts its own, with
# its own root, state and socket, and a system one would hold
# /run/containerd and compete for the machine's two cores.
set -o errexit -o nounset -o pipefail

# command:package pairs; a package is installed when its command is missing.
wanted=(
  containerd:containerd
  runc:runc
  /usr/lib/cni/bridge:containernetworking-plugins
  ip:iproute2
  iptables:iptables
  conntrack:conntrack
  nsenter:util-linux
)
missing=()
for pair in "${wanted[@]}"; do
  cmd=${pair%%:*} pkg=${pair#*:}
  if [[ $cmd == /* ]]; then
    [[ -x $cmd ]] || missing+=("$pkg")
  else
    command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
  fi
done
# By package, not command: Debian's dynamic busybox has the same path.
if [[ $(dpkg-query -W -f='${db:Status-Status}' busybox-static 2>/dev/null) != installed ]]; then
  missing+=(busybox-static)
fi
if [[ ${#missing[@]} -eq 0 ]]; then
  exit 0
fi
echo "test node packages missing: installing ${missing[*]}" >&2

# invoke-rc.d asks policy-rc.d whether a service may start; 101 means no.
# A policy already in place (as in Docker images) is left as it is.
policy=/usr/sbin/policy-rc.d
if [[ ! -e $policy ]]; then
  printf '#!/bin/sh\n# written by setpoint hack/ensure-node.sh during an install\nexit 101\n' >"$policy"
  chmod 0755 "$policy"
  trap 'rm -f "$policy"' EXIT
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -y
apt-get install -y --no-install-recommends "${missing[@]}"

# Belt and braces: where systemd runs, a unit may still have been enabled.
if command -v systemctl >/dev/null 2>&1 && [[ -d /run/systemd/system ]]; then
  systemctl disable --now containerd.service >/dev/null 2>&1 || true
fi
