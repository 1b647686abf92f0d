#!/usr/bin/env bash
# The quick start: set the machine up, create the bundled sample PR and run reviewbot on it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
sample_dir=${REVIEWBOT_SAMPLE_DIR:-$PWD/var/sample-repo}
bash scripts/create-sample-repo.sh "$sample_dir" >/dev/null
echo
echo "\$ reviewbot checkout --repo $sample_dir --base main --head fork"
exec node apps/cli/dist/main.js checkout --repo "$sample_dir" --base main --head fork
