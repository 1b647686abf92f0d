#!/usr/bin/env bash
# Renders infra/redis/users.acl.template into a Redis ACL file: each role's password file is
# hashed (SHA-256) into its placeholder; the passwords themselves never enter the ACL file.
# Usage: render-acl.sh <api-password-file> <worker-password-file> <admin-password-file> > users.acl
set -euo pipefail
(($# == 3)) || { echo "usage: $0 <api-password-file> <worker-password-file> <admin-password-file>" >&2; exit 2; }
hash() { tr -d '\n' <"$1" | sha256sum | cut -d' ' -f1; }
api=$(hash "$1") worker=$(hash "$2") admin=$(hash "$3")
template="$(dirname "$0")/users.acl.template"
sed -e "s/{{API}}/$api/" -e "s/{{WORKER}}/$worker/" -e "s/{{ADMIN}}/$admin/" -e '/^#/d' -e '/^$/d' "$template"
