#!/usr/bin/env bash
# Builds reviewbot's helper images without any image registry (none is reachable from our hosts):
#   localhost/reviewbot/base    debootstrap'ed Debian minbase, `podman import`ed
#   localhost/reviewbot/python  base + flake8, pylint (Debian packages)
#   localhost/reviewbot/node    base + nodejs, eslint, typescript, typescript-eslint (npm registry)
# Each image carries the label io.reviewbot.inputs-hash (its files, its parent's hash, pinned
# versions); an image whose label matches is not rebuilt, so a second run takes seconds.
# Usage (as root): infra/images/build.sh [--force]   --force rebuilds all (e.g. for Debian updates)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
# Our Podman settings (runc, cgroupfs, file events, rlimits), without touching /etc/containers.
export CONTAINERS_CONF="$here/../podman/containers.conf"

SUITE=bookworm
MIRROR=http://deb.debian.org/debian
LABEL=io.reviewbot.inputs-hash
WORKDIR=${REVIEWBOT_IMAGES_WORKDIR:-/var/tmp/reviewbot-images}
ROOTFS=$WORKDIR/base-rootfs
DEBOOTSTRAP_CACHE=${REVIEWBOT_DEBOOTSTRAP_CACHE:-/var/cache/reviewbot/debootstrap}
# npm reaches the registry through a TLS-intercepting proxy: give the build the host's CA bundle.
CA_BUNDLE=${NODE_EXTRA_CA_CERTS:-${SSL_CERT_FILE:-/etc/ssl/certs/ca-certificates.crt}}
BASE_CONFIG=(
  "USER 10001:10001"
  "WORKDIR /work"
  "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
  "ENV LANG=C.UTF-8"
  'CMD ["/bin/sh"]'
)
force=false
[[ ${1:-} == --force ]] && force=true

die() { echo "build.sh: $*" >&2; exit 1; }
[[ $(id -u) -eq 0 ]] || die "run as root (debootstrap and rootful podman)"
for tool in podman debootstrap runc sha256sum; do
  command -v "$tool" >/dev/null || die "$tool is missing (apt-get install podman runc debootstrap)"
done
[[ -r $CA_BUNDLE ]] || die "CA bundle $CA_BUNDLE not readable (set NODE_EXTRA_CA_CERTS)"
# runc cannot raise rlimits here (no CAP_SYS_RESOURCE): the defaults in containers.conf must fit.
for limit in nofile:n nproc:u; do
  want=$(grep -o "\"${limit%:*}=[0-9]*" "$CONTAINERS_CONF" | cut -d= -f2)
  have=$(ulimit -H"${limit#*:}")
  [[ $have == unlimited || $have -ge $want ]] ||
    die "hard ${limit%:*} limit $have is below $want in $CONTAINERS_CONF; lower it there"
done

# inputs_hash PARENT_HASH DIR [STRING...]: sha256 of a directory's files (names, modes, contents)
# and the strings.
inputs_hash() {
  local parent=$1 dir=$2; shift 2
  { echo "$parent"; printf '%s\n' "$@"
    (cd "$here" && find "$dir" -type f -printf '%p %m\n' | sort && find "$dir" -type f | sort | xargs sha256sum)
  } | sha256sum | cut -c1-16
}
label_of() { podman image inspect --format "{{ index .Labels \"$LABEL\" }}" "$1" 2>/dev/null || true; }
image_id() { podman image inspect --format '{{.Id}}' "$1" 2>/dev/null || true; }
now_ms() { local t=${EPOCHREALTIME/./}; echo $((t / 1000)); }

# finish NAME OLD_ID STATUS START: note the image this build replaced and report.
replaced=()
finish() {
  local name=$1 old=$2 status=$3 start=$4 size ms
  if [[ -n $old && $old != "$(image_id "$name")" ]]; then replaced+=("$old"); fi
  size=$(podman image inspect --format '{{.Size}}' "$name")
  ms=$(($(now_ms) - start))
  printf '%-34s %-6s %4d MB %4d.%ds\n' "$name" "$status" $((size / 1000000)) $((ms / 1000)) $((ms % 1000 / 100))
}

build_base() {
  local name=localhost/reviewbot/base:latest start=$(now_ms) old change=()
  old=$(image_id "$name")
  if ! $force && [[ $(label_of "$name") == "$base_hash" ]]; then finish "$name" "" cached "$start"; return; fi
  rm -rf "$ROOTFS" && mkdir -p "$WORKDIR"
  trap 'rm -rf "$ROOTFS"' EXIT
  "$here/base/mkrootfs.sh" "$ROOTFS" "$SUITE" "$MIRROR" "$DEBOOTSTRAP_CACHE" >"$WORKDIR/base.log" 2>&1 ||
    { tail -n 30 "$WORKDIR/base.log" >&2; die "$name: mkrootfs.sh failed (log: $WORKDIR/base.log)"; }
  for c in "${BASE_CONFIG[@]}" "LABEL $LABEL=$base_hash"; do change+=(--change "$c"); done
  tar -C "$ROOTFS" --numeric-owner -c . | podman import --quiet "${change[@]}" - "$name" >/dev/null
  rm -rf "$ROOTFS"; trap - EXIT
  # A failed image must not stay tagged with a matching label, or the next run would skip it.
  check "$name" base || { podman rmi "$name" >/dev/null; die "$name: smoke test failed"; }
  finish "$name" "$old" built "$start"
}

# build_child NAME HASH [PODMAN BUILD ARGS...]: podman build infra/images/NAME on top of base.
build_child() {
  local short=$1 hash=$2 name=localhost/reviewbot/$1:latest start=$(now_ms) old; shift 2
  old=$(image_id "$name")
  if ! $force && [[ $(label_of "$name") == "$hash" ]]; then finish "$name" "" cached "$start"; return; fi
  # --layers=false: one layer per image, no intermediate images left behind; the label is our cache.
  mkdir -p "$WORKDIR"
  podman build --pull=never --layers=false --label "$LABEL=$hash" "$@" \
    -t "$name" "$here/$short" >"$WORKDIR/$short.log" 2>&1 ||
    { tail -n 30 "$WORKDIR/$short.log" >&2; die "$name: podman build failed (log: $WORKDIR/$short.log)"; }
  check "$name" "$short" || { podman rmi "$name" >/dev/null; die "$name: smoke test failed"; }
  finish "$name" "$old" built "$start"
}

# check NAME SHORT: every image runs as 10001:10001, has no setuid/setgid file, passes smoke_SHORT.
check() {
  local suid
  podman run --rm --network none "$1" sh -c '[ "$(id -u):$(id -g)" = 10001:10001 ]' ||
    { echo "$1 does not run as 10001:10001" >&2; return 1; }
  suid=$(podman run --rm --network none --user 0 "$1" find / -xdev -perm /6000 -type f)
  [[ -z $suid ]] || { echo "$1 has setuid/setgid files: $suid" >&2; return 1; }
  smoke_"$2" "$1"
}
smoke_base() { :; }
smoke_python() { podman run --rm --network none "$1" flake8 --version >/dev/null; }
smoke_node() {
  # Offline, read-only worktree, default config: must print JSON findings for a bad .ts file.
  local dir out
  dir=$(mktemp -d) && printf 'let unused: any = 1;\n' >"$dir/bad.ts" && chmod -R a+rX "$dir"
  out=$(podman run --rm --network none -v "$dir:/work:ro" "$1" reviewbot-eslint --format json . || true)
  rm -rf "$dir"
  [[ $out == *'"ruleId":"@typescript-eslint/no-explicit-any"'* ]] || { echo "$out" >&2; return 1; }
}

base_hash=$(inputs_hash "$SUITE $MIRROR" base "${BASE_CONFIG[@]}")
build_base
build_child python "$(inputs_hash "$base_hash" python)"
build_child node "$(inputs_hash "$base_hash" node)" --volume "$CA_BUNDLE:/run/reviewbot/ca.crt:ro"
# Drop the images this run replaced, children before parents (podman keeps a parent with children).
for ((i = ${#replaced[@]} - 1; i >= 0; i--)); do podman rmi "${replaced[i]}" >/dev/null 2>&1 || true; done
