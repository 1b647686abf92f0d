#!/bin/sh
# Installed in every image as /usr/local/sbin/reviewbot-image-clean. Run it (as root) at the end of
# each build step that installs packages: it removes what helpers never need and strips
# setuid/setgid bits, so a helper that finds a privilege-escalation bug has no setuid binary to use.
set -eu
apt-get clean
rm -rf /var/lib/apt/lists/* /var/cache/apt/*.bin /var/cache/debconf/*-old /var/lib/dpkg/*-old \
  /var/log/apt /var/log/*.log /var/log/*.gz /root/.npm /root/.cache /tmp/* /var/tmp/*
# Documentation (dpkg.cfg.d/reviewbot-nodoc stops it coming back); licence files stay.
find /usr/share/doc -mindepth 1 ! -type d ! -name copyright -delete
find /usr/share/doc -mindepth 1 -depth -type d -empty -delete
rm -rf /usr/share/man/* /usr/share/info/* /usr/share/locale/* /usr/share/lintian
find / -xdev -perm /6000 -type f -exec chmod ug-s {} +
