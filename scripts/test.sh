#!/usr/bin/env bash
# Every test suite: lint, typecheck, unit tests, then the integration suites against real git
# (and, as they arrive, real Redis and sandboxes). Sets the machine up first, so it also works on a
# fresh one; CI runs exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
pnpm turbo run lint typecheck test --output-logs=errors-only
pnpm turbo run test:integration
