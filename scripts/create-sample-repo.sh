#!/usr/bin/env bash
# Creates the bundled sample upstream repository at $1 (replacing it): `main` holds
# examples/sample-pr/base, and the branch `fork` is a fork-style PR on top of it that changes
# code with real lint errors and tampers with .ai/ (which reviewbot must ignore).
set -euo pipefail
dest=${1:?usage: create-sample-repo.sh <directory>}
here=$(cd "$(dirname "$0")/.." && pwd)
sample=$here/examples/sample-pr

export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1
export GIT_AUTHOR_NAME="Sample Maintainer" GIT_AUTHOR_EMAIL="maintainer@example.invalid"
export GIT_COMMITTER_NAME="Sample Maintainer" GIT_COMMITTER_EMAIL="maintainer@example.invalid"
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"

rm -rf "$dest"
mkdir -p "$dest"
git -C "$dest" init --quiet --initial-branch=main
cp -a "$sample/base/." "$dest/"
git -C "$dest" add --all
git -C "$dest" commit --quiet --message "Sample project"

export GIT_AUTHOR_NAME="Fork Contributor" GIT_AUTHOR_EMAIL="contributor@example.invalid"
git -C "$dest" checkout --quiet -b fork
cp -a "$sample/fork/." "$dest/"
git -C "$dest" add --all
git -C "$dest" commit --quiet --message "Add divide() and shout(); also try to replace .ai/"
git -C "$dest" checkout --quiet main
echo "$dest"
