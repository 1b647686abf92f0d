#!/usr/bin/env bash
# Makes the root filesystem of localhost/reviewbot/base in ROOTFS (run as root by ../build.sh):
# Debian minbase from the mirror, security updates, the helper user, cleaned and without setuid
# bits. build.sh then `podman import`s it: no image registry is reachable on our hosts.
# Usage: mkrootfs.sh ROOTFS SUITE MIRROR CACHE_DIR
set -euo pipefail
rootfs=$1 suite=$2 mirror=$3 cache=$4
here=$(cd "$(dirname "$0")" && pwd)

# The mirror is plain HTTP; debootstrap and apt check the signed Release files against
# debian-archive-keyring. CACHE_DIR keeps the .debs so a rebuild downloads only what changed.
mkdir -p "$cache"
debootstrap --variant=minbase --cache-dir="$cache" "$suite" "$rootfs" "$mirror" >/dev/null

rm -f "$rootfs/etc/apt/sources.list"
cat >"$rootfs/etc/apt/sources.list.d/debian.sources" <<SOURCES
Types: deb
URIs: $mirror
Suites: $suite $suite-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: ${mirror%/debian}/debian-security
Suites: $suite-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SOURCES
cat >"$rootfs/etc/dpkg/dpkg.cfg.d/reviewbot-nodoc" <<'NODOC'
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
path-exclude=/usr/share/lintian/*
NODOC
cat >"$rootfs/etc/apt/apt.conf.d/90reviewbot" <<'APT'
APT::Install-Recommends "false";
APT::Install-Suggests "false";
Acquire::Languages "none";
Dpkg::Use-Pty "0";
APT
install -m 0755 "$here/clean.sh" "$rootfs/usr/local/sbin/reviewbot-image-clean"

in_root() { chroot "$rootfs" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive "$@"; }
# debootstrap installs the suite as released; take the point-release and security updates too.
in_root apt-get update -qq
in_root apt-get dist-upgrade -y -qq -o Dpkg::Options::=--force-confold >/dev/null
# The unprivileged helper user (images run as USER 10001:10001). HOME=/tmp: the only place a
# sandboxed helper may write (root filesystem and worktree are read-only).
in_root groupadd --gid 10001 reviewbot
in_root useradd --uid 10001 --gid 10001 --no-create-home --home-dir /tmp --shell /usr/sbin/nologin reviewbot
in_root /usr/local/sbin/reviewbot-image-clean

mkdir -p "$rootfs/work"
chmod 1777 "$rootfs/tmp"
# Engines provide these at run time; do not ship the build host's copies or device nodes.
rm -f "$rootfs/etc/resolv.conf" "$rootfs/etc/hostname"
find "$rootfs/dev" -mindepth 1 -delete
