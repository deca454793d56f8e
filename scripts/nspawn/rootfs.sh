#!/usr/bin/env bash
# A Debian 12 root file system for the deploy test (e2e/test/deploy-systemd.test.ts), which boots
# it with systemd-nspawn — real systemd 252 as PID 1 — and installs the shipped unit in it as
# deploy/README.md says. Built once (about 30 s) into a cache the tests only read: each boot
# writes to a throw-away overlay (`--volatile=overlay`). Node, npm and the checkout come from
# the host as read-only binds, so nothing here depends on the project's version.
#
#   scripts/nspawn/rootfs.sh [DIR]     default /var/cache/mcpkit-nspawn/bookworm (MCPKIT_NSPAWN_ROOTFS)
#
# Needs root, Debian's mmdebstrap (or debootstrap) and systemd-container (.ci/run installs them).
set -euo pipefail

DIR=${1:-${MCPKIT_NSPAWN_ROOTFS:-/var/cache/mcpkit-nspawn/bookworm}}
# Bumped when the package list changes: an older tree is rebuilt, not reused.
VERSION=1
MARKER="$DIR/.mcpkit-rootfs"
# systemd as PID 1 (and the dynamic users' names), a shell's basics, and what the README's
# steps call: openssl for the token, procps for kill in ExecReload.
PACKAGES=systemd,systemd-sysv,dbus,libnss-systemd,util-linux,procps,ca-certificates,openssl
MIRROR=${MCPKIT_DEBIAN_MIRROR:-http://deb.debian.org/debian}

if [ -f "$MARKER" ] && [ "$(cat "$MARKER")" = "$VERSION $PACKAGES" ]; then
  echo "rootfs: $DIR (cached)"
  exit 0
fi

rm -rf "$DIR.tmp"
mkdir -p "$(dirname "$DIR")"
if command -v mmdebstrap >/dev/null 2>&1; then
  mmdebstrap --quiet --variant=minbase --include="$PACKAGES" \
    --dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*' \
    --dpkgopt='path-exclude=/usr/share/locale/*' bookworm "$DIR.tmp" "$MIRROR"
else
  debootstrap --variant=minbase --include="$PACKAGES" bookworm "$DIR.tmp" "$MIRROR" >/dev/null
  rm -rf "$DIR.tmp/var/cache/apt/archives/"*.deb
fi
# The mount points of the host's binds.
mkdir -p "$DIR.tmp/opt/mcpkit" "$DIR.tmp/usr/lib/node_modules/npm"
echo "$VERSION $PACKAGES" >"$DIR.tmp/.mcpkit-rootfs"
rm -rf "$DIR"
mv "$DIR.tmp" "$DIR"
echo "rootfs: $DIR (built)"
