#!/usr/bin/env bash
# Validates the systemd units in infra/systemd without a running systemd:
#   1. `systemd-analyze verify` on each unit (templates as instance @9464, and the worker again with
#      the bwrap drop-in); any warning fails, since verify itself exits 0 on unknown keys and bad
#      values;
#   2. `systemd-analyze security --offline` under a per-unit exposure threshold;
#   3. the hardening directives each unit must carry (a missing one fails, whatever its score).
# Usage: scripts/validate-units.sh [UNIT_DIR]   (default: infra/systemd)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dir=$(realpath "${1:-$root/infra/systemd}")

die() { echo "validate-units: $*" >&2; exit 1; }
command -v systemd-analyze >/dev/null || die "systemd-analyze is missing (apt-get install systemd)"

# Exposure ceilings (0 = locked down, 10 = exposed). The Podman service keeps what rootless
# Podman needs (setuid newuidmap, user namespaces), hence its higher ceiling.
declare -A THRESHOLD=([reviewbot-api.service]=20 [reviewbot-worker@.service]=20 [reviewbot-podman.service]=60)
COMMON=(NoNewPrivileges=yes ProtectSystem=strict ProtectHome=yes PrivateTmp=yes CapabilityBoundingSet=
  RestrictAddressFamilies= MemoryMax= TasksMax= Restart=on-failure TimeoutStopSec= LoadCredential=)
declare -A REQUIRED=(
  [reviewbot-api.service]="${COMMON[*]} DynamicUser=yes SystemCallFilter=@system-service SystemCallFilter=~@privileged EnvironmentFile= KillMode=mixed"
  [reviewbot-worker@.service]="${COMMON[*]} EnvironmentFile= KillMode=mixed CacheDirectory=reviewbot"
  [reviewbot-podman.service]="ProtectSystem=strict ProtectHome=yes PrivateTmp=yes Restart=on-failure TimeoutStopSec= Delegate=yes"
)

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"
problems=0
fail() { echo "validate-units: $*" >&2; problems=$((problems + 1)); }

# verify NAME [DROPIN]: copy the unit (and a drop-in) into a private search path and verify it;
# sets $loaded to the unit file verified (an instance for a template).
verify() {
  local unit=$1 dropin=${2:-} path=$work/units-$RANDOM instance out
  mkdir -p "$path"
  cp "$dir/$unit" "$path/"
  if [[ -n $dropin ]]; then mkdir -p "$path/$unit.d" && cp "$dropin" "$path/$unit.d/"; fi
  instance=${unit/@./@9464.}
  out=$(SYSTEMD_UNIT_PATH="$path:" systemd-analyze verify --man=no "$path/$instance" 2>&1) || fail "$instance: verify failed"
  [[ -z $out ]] || fail "$instance${dropin:+ + $(basename "$dropin")}: $out"
  loaded=$path/$instance
}

for unit in "${!THRESHOLD[@]}"; do
  [[ -f $dir/$unit ]] || { fail "$unit is missing"; continue; }
  verify "$unit"
  if ! out=$(systemd-analyze security --offline=yes --threshold="${THRESHOLD[$unit]}" "$loaded" 2>&1); then
    fail "$unit: exposure above $((THRESHOLD[$unit] / 10)).$((THRESHOLD[$unit] % 10)): $(grep -o 'Overall exposure.*' <<<"$out")"
  fi
  for directive in ${REQUIRED[$unit]}; do
    grep -q "^${directive}" "$dir/$unit" || fail "$unit lacks ${directive}"
  done
done
# The worker's stop timeout must outlast its drain (REVIEWBOT_SHUTDOWN_GRACE_MS).
grace_ms=$(sed -n 's/^Environment=REVIEWBOT_SHUTDOWN_GRACE_MS=//p' "$dir/reviewbot-worker@.service")
stop_s=$(sed -n 's/^TimeoutStopSec=\([0-9]*\)s$/\1/p' "$dir/reviewbot-worker@.service")
[[ -n $grace_ms && -n $stop_s && $((stop_s * 1000)) -gt $grace_ms ]] ||
  fail "reviewbot-worker@.service: TimeoutStopSec=${stop_s:-?}s does not outlast REVIEWBOT_SHUTDOWN_GRACE_MS=${grace_ms:-?}"
for dropin in "$dir"/reviewbot-worker@.service.d.example/*.conf; do
  if [[ -f $dropin ]]; then verify reviewbot-worker@.service "$dropin"; fi
done

((problems == 0)) || die "$problems problem(s)"
echo "validate-units: ${#THRESHOLD[@]} units ok"
