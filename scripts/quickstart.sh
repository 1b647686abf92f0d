#!/usr/bin/env bash
# The quick start: set the machine up, create the bundled sample PR and review it with reviewbot.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
sample_dir=${REVIEWBOT_SAMPLE_DIR:-$PWD/var/sample-repo}
bash scripts/create-sample-repo.sh "$sample_dir" >/dev/null
echo
echo "\$ reviewbot review --repo $sample_dir --base main --head fork"
# Exit 1 means the review found errors on the PR's lines, which is what the sample is for.
node apps/cli/dist/main.js review --repo "$sample_dir" --base main --head fork || [[ $? -eq 1 ]]
