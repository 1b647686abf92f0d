#!/usr/bin/env bash
# The quick start: set the machine up, then start the embedded fleet (a private Redis, the API with
# a local sink, one worker) and review the bundled sample PR through the queue. On a terminal the
# fleet stays up (dashboard address printed) until Ctrl-C; otherwise it exits after the review.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
echo
echo "\$ reviewbot fleet"
exec node apps/cli/dist/main.js fleet "$@"
