#!/usr/bin/env bash
# Makes a machine ready to build, run and test reviewbot: Debian 12 with Node 20 and npm, as root,
# nothing else assumed. Installs only what is missing, so a second run takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

log() { printf '\033[1msetup:\033[0m %s\n' "$*" >&2; }

# Debian packages: git for the clone cache; redis-server for the queue; podman, runc, uidmap,
# slirp4netns, fuse-overlayfs and bubblewrap for the sandboxes (runc: crun fails on these hosts'
# hybrid cgroups); docker.io for the docker engine (a private dockerd, never the system one) and
# rootlesskit for its rootless mode (dockerd-rootless.sh, which the probe refuses on cgroup v1:
# test/security/rootless.test.ts); debootstrap for the helper images' base; chromium for the
# dashboard's browser tests (driven by playwright-core, which downloads no browser of its own);
# docker-compose (v1, no engine needed) and systemd's analyzer to validate docker-compose.yml and
# the units in infra/; prometheus for promtool (the alert rules' unit tests) and the real Prometheus
# the alerting test scrapes the fleet with (test/infra/prometheus-*.test.ts).
DEBIAN_PACKAGES=(ca-certificates git redis-server podman runc uidmap slirp4netns fuse-overlayfs bubblewrap docker.io rootlesskit debootstrap chromium docker-compose systemd prometheus)

missing=()
for package in "${DEBIAN_PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$package")
  fi
done
if ((${#missing[@]} > 0)); then
  if [[ $(id -u) -ne 0 ]]; then
    log "missing Debian packages: ${missing[*]}; run this script as root or install them first"
    exit 1
  fi
  log "installing Debian packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# pnpm at the version package.json pins. corepack cannot verify pnpm's signatures on these
# machines ("No compatible signature found"), so npm installs it.
pnpm_version=$(node -p 'require("./package.json").packageManager.split("@")[1]')
if [[ $(pnpm --version 2>/dev/null || true) != "$pnpm_version" ]]; then
  log "installing pnpm $pnpm_version"
  npm install --global --silent "pnpm@$pnpm_version" >/dev/null
fi

log "installing dependencies from the lockfile"
pnpm install --frozen-lockfile --reporter=silent
log "building"
pnpm turbo run build --output-logs=errors-only >/dev/null
# Helper images (infra/images/README.md): built from Debian's mirror and the npm registry, no image
# registry; cached by an inputs-hash label, so an unchanged run takes under a second.
if [[ $(id -u) -eq 0 ]]; then
  log "building helper images"
  infra/images/build.sh
  # The docker engine's private dockerd (docs/sandbox.md, "Docker"): the images go into its data
  # root under the cache directory, and into the one the test suites share; skipped by image id.
  if command -v dockerd >/dev/null; then
    log "loading helper images into the private Docker data roots"
    infra/images/load-docker.sh "${REVIEWBOT_CACHE_DIR:-/var/cache/reviewbot}/sandbox/docker"
    infra/images/load-docker.sh /var/tmp/reviewbot-test-docker /var/tmp/reviewbot-test-docker
  fi
else
  log "not root: skipping helper images (run infra/images/build.sh as root)"
fi
log "ready"
