#!/usr/bin/env bash
# Makes sure PostgreSQL's server binaries (initdb, postgres) are installed:
# the CNPG stand-in runs real Postgres. Installs Debian's package when
# missing (needs root, as on CI and the dev machines).
set -o errexit -o nounset -o pipefail
if ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
  exit 0
fi
echo "PostgreSQL server binaries missing: installing Debian's postgresql package" >&2
export DEBIAN_FRONTEND=noninteractive
apt-get update -y
apt-get install -y --no-install-recommends postgresql
