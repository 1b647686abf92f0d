#!/usr/bin/env bash
# Renders infra/redis/users.acl.template into a Redis ACL file: each role's password file is
# hashed (SHA-256) into its placeholder; the passwords themselves never enter the ACL file. The
# key and channel patterns follow REVIEWBOT_REDIS_PREFIX when it is set (docs/deployment.md),
# as the apps' keys do: `<prefix>:…` for ours, `<prefix>:bull:…` for BullMQ's.
# Usage: [REVIEWBOT_REDIS_PREFIX=…] render-acl.sh <api-password-file> <worker-password-file> <admin-password-file> > users.acl
set -euo pipefail
(($# == 3)) || { echo "usage: $0 <api-password-file> <worker-password-file> <admin-password-file>" >&2; exit 2; }
prefix=${REVIEWBOT_REDIS_PREFIX-}
if [[ -z ${REVIEWBOT_REDIS_PREFIX+set} ]]; then
  ours=reviewbot bull=bull
else
  # The apps' own check (packages/queue/src/redis-keyspace.ts); packages/queue/src/redis-acl.test.ts
  # renders with both and compares, and checks this script refuses what the apps refuse.
  if ((${#prefix} > 64)) || [[ ! $prefix =~ ^(\{[A-Za-z0-9_.:-]+\})?[A-Za-z0-9_.:-]*$ ]] || [[ -z $prefix || $prefix == *: ]]; then
    echo "REVIEWBOT_REDIS_PREFIX: must be letters, digits, _ . : - and may open with one hash tag such as {reviewbot}" >&2
    exit 2
  fi
  ours=$prefix bull=$prefix:bull
fi
hash() { tr -d '\n' <"$1" | sha256sum | cut -d' ' -f1; }
api=$(hash "$1") worker=$(hash "$2") admin=$(hash "$3")
template="$(dirname "$0")/users.acl.template"
sed -e "s/{{API}}/$api/" -e "s/{{WORKER}}/$worker/" -e "s/{{ADMIN}}/$admin/" -e "s/{{PREFIX}}/$ours/g" -e "s/{{BULL}}/$bull/g" -e '/^#/d' -e '/^$/d' "$template"
