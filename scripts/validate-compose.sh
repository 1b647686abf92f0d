#!/usr/bin/env bash
# Validates docker-compose.yml without a container engine:
#   1. the Compose schema and interpolation, with Debian's docker-compose (v1: `config` needs no
#      engine; installed through apt when missing, as root);
#   2. the deployment's structural rules (scripts/check-compose.mjs) on the normalised config.
# The env files are the committed examples and the secrets are dummies in a temp dir, so this
# checks the file as shipped, not a host's deployment.
# Usage: scripts/validate-compose.sh [COMPOSE_FILE] [--json OUT]   (default: docker-compose.yml)
#   --json OUT also writes the normalised config as JSON (tests read it).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
file=$root/docker-compose.yml
json_out=
while (($# > 0)); do
  case $1 in
    --json) json_out=$2; shift 2 ;;
    *) file=$(realpath "$1"); shift ;;
  esac
done

die() { echo "validate-compose: $*" >&2; exit 1; }
if ! command -v docker-compose >/dev/null; then
  [[ $(id -u) -eq 0 ]] || die "docker-compose is missing: apt-get install docker-compose"
  echo "validate-compose: installing docker-compose (Debian)" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null
fi
# Debian's docker-compose depends on python3-yaml; use Debian's python, not one on PATH (pyenv).
/usr/bin/python3 -c 'import yaml' 2>/dev/null || die "/usr/bin/python3 lacks yaml (apt-get install python3-yaml)"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/deploy/secrets"
cp "$root/infra/compose/api.env.example" "$work/deploy/api.env"
cp "$root/infra/compose/worker.env.example" "$work/deploy/worker.env"
for secret in github-app.pem webhook-secret dashboard-password worker-credential; do
  echo dummy >"$work/deploy/secrets/$secret"
done

# A clean, fixed environment: only what the file interpolates, with the documented defaults.
run_compose() {
  env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME="$work" \
    REVIEWBOT_DEPLOY_DIR="$work/deploy" XDG_RUNTIME_DIR=/run/user/1000 \
    docker-compose --project-directory "$root" -f "$file" "$@"
}
run_compose config -q || die "$file: docker-compose config failed"
run_compose config >"$work/config.yml" 2>"$work/config.err" || { cat "$work/config.err" >&2; die "docker-compose config failed"; }
/usr/bin/python3 -c 'import json, sys, yaml; json.dump(yaml.safe_load(open(sys.argv[1])), open(sys.argv[2], "w"), indent=2)' \
  "$work/config.yml" "$work/config.json"
[[ -z $json_out ]] || cp "$work/config.json" "$json_out"
node "$root/scripts/check-compose.mjs" "$work/config.json"
echo "validate-compose: $(realpath --relative-to="$root" "$file") ok"
