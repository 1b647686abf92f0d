#!/usr/bin/env bash
# Loads the helper images from Podman's storage (where build.sh builds them) into a private Docker
# daemon's data root, for the docker engine (docs/sandbox.md, "Docker"). An image whose id is
# already there is skipped, so an unchanged run takes about a second. When DIR/docker.sock answers
# (the worker's own dockerd is running) the images go through it; otherwise a dockerd is started on
# DATA_ROOT for the load and stopped again, with the flags of packages/sandbox/src/container/docker-service.ts.
# Usage (as root): infra/images/load-docker.sh DIR [DATA_ROOT [IMAGE...]]
#   DATA_ROOT defaults to DIR/data; IMAGEs (default: every helper image) are Podman references.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
export CONTAINERS_CONF="$here/../podman/containers.conf"
IMAGES=(localhost/reviewbot/base:latest localhost/reviewbot/python:latest localhost/reviewbot/node:latest)
dir=${1:?usage: load-docker.sh DIR [DATA_ROOT [IMAGE...]]}
data_root=${2:-$dir/data}
if (($# > 2)); then IMAGES=("${@:3}"); fi
die() { echo "load-docker.sh: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "run as root (a private dockerd)"
command -v dockerd >/dev/null || die "dockerd is missing (apt-get install docker.io)"

sock=$dir/docker.sock
if ! docker -H "unix://$sock" version >/dev/null 2>&1; then
  tmp=$(mktemp -d /tmp/reviewbot-dockerd.XXXXXX)
  sock=$tmp/docker.sock
  echo '{}' >"$tmp/daemon.json"
  namespace=reviewbot-$(printf %s "$data_root" | sha256sum | cut -c1-12)
  mkdir -p "$data_root"
  dockerd --config-file="$tmp/daemon.json" --data-root="$data_root" --exec-root="$tmp/exec" --host="unix://$sock" \
    --pidfile="$tmp/docker.pid" --containerd-namespace="$namespace" --containerd-plugins-namespace="$namespace-plugins" \
    --bridge=none --iptables=false --ip-forward=false --ip-masq=false --log-level=warn 2>"$tmp/dockerd.log" &
  pid=$!
  trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$tmp"' EXIT
  for _ in $(seq 300); do docker -H "unix://$sock" version >/dev/null 2>&1 && break; sleep 0.1; done
  docker -H "unix://$sock" version >/dev/null 2>&1 || { cat "$tmp/dockerd.log" >&2; die "dockerd did not start"; }
fi

for image in "${IMAGES[@]}"; do
  want=$(podman image inspect --format '{{.Id}}' "$image" 2>/dev/null) || die "$image is not built (infra/images/build.sh)"
  have=$(docker -H "unix://$sock" image inspect --format '{{.Id}}' "$image" 2>/dev/null || true)
  if [[ $have == "sha256:$want" ]]; then status=cached; else
    podman save "$image" | docker -H "unix://$sock" load --quiet >/dev/null
    status=loaded
  fi
  printf '%-34s %-6s docker %s\n' "$image" "$status" "$data_root"
done
