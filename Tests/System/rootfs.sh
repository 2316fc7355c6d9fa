#!/usr/bin/env bash
# Makes (once per machine and package list) the Debian 12 root file system the system suite boots, and
# prints its path. Cached under $SCHEDD_SYSTEM_CACHE (default /var/cache/schedd-system-tests) as
# rootfs-HASH, HASH being a hash of this file (the package list, the user set-up): changing either makes a
# new one, and older ones are removed. Built with debootstrap --variant=minbase from this machine's own
# Debian mirror (~45-90 s, ~300 MB), in a temporary directory renamed into place when complete, so an
# interrupted build leaves nothing a later run would take for a finished one.
#   Tests/System/rootfs.sh            prints the cached root's path (building it first when missing)
# Needs root, debootstrap, and the Debian mirror reachable (first run only).
set -euo pipefail
# All in one function: bash parses it whole before running it, so editing this file during a build
# cannot derail the build.
main() {
  [ "$(id -u)" = 0 ] || { echo "rootfs: needs root (debootstrap, chroot)" >&2; exit 1; }
  # What the container has beyond minbase: systemd as PID 1 with logind and a user manager (the session
  # bus is dbus-user-session's dbus-daemon; dbus-broker is installed beside it for the broker checks),
  # python3-dbus/python3-gi for the recording notification server. schedd's own dependencies are NOT
  # here: the package's Depends bring them (apt-get install ./schedd.deb), which is what proves them.
  # polkitd: logind asks polkit whether a non-root user may take an inhibitor (a desktop has it; without
  # it logind refuses every such Inhibit with AccessDenied).
  PACKAGES="dbus,dbus-user-session,dbus-broker,systemd,systemd-sysv,libpam-systemd,python3-dbus,python3-gi,polkitd"
  SUITE=bookworm
  SETUP=1
  cache="${SCHEDD_SYSTEM_CACHE:-/var/cache/schedd-system-tests}"
  key=$(printf '%s\n' "$PACKAGES" "$SUITE" "$SETUP" | sha256sum | cut -c1-16)
  root="$cache/rootfs-$key"
  if [ -f "$root/.complete" ]; then echo "$root"; exit 0; fi

  mkdir -p "$cache"
  exec 9>"$cache/.lock"
  flock 9   # two suites on one machine build it once
  if [ -f "$root/.complete" ]; then echo "$root"; exit 0; fi
  mirror="${DEBIAN_MIRROR:-$(awk '/^URIs:/{print $2; exit}' /etc/apt/sources.list.d/debian.sources 2>/dev/null || true)}"
  [ -n "$mirror" ] || mirror=$(awk '$1 == "deb" {print $2; exit}' /etc/apt/sources.list 2>/dev/null || true)
  [ -n "$mirror" ] || mirror=http://deb.debian.org/debian
  command -v debootstrap >/dev/null || { echo "rootfs: debootstrap is not installed (scripts/install-deps.sh)" >&2; exit 1; }
  tmp=$(mktemp -d "$cache/build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  start=$(date +%s)
  echo "rootfs: debootstrap $SUITE from $mirror into $tmp (once per package list)" >&2
  mkdir -p "$cache/debs"
  debootstrap --cache-dir="$cache/debs" --variant=minbase --include="$PACKAGES" "$SUITE" "$tmp/root" "$mirror" >"$tmp/debootstrap.log" 2>&1 \
    || { tail -n 30 "$tmp/debootstrap.log" >&2; echo "rootfs: debootstrap failed" >&2; exit 1; }
  r="$tmp/root"
  # Package indexes, so `apt-get install ./schedd.deb` can resolve the package's Depends in each run.
  cat > "$r/etc/apt/sources.list" <<SOURCES
deb $mirror $SUITE main
deb $mirror $SUITE-updates main
SOURCES
  chroot "$r" apt-get update -qq >&2
  # Two real users (uid 1000 and 1001), lingering so user@UID.service and their session buses start at
  # boot; a third (1002) for the kiosk refusal. None has a password: the suite enters as root (nsenter)
  # and opens their sessions with systemd-run -p PAMName=login -p User=NAME.
  chroot "$r" useradd -m -u 1000 -s /bin/bash tester
  chroot "$r" useradd -m -u 1001 -s /bin/bash second
  chroot "$r" useradd -m -u 1002 -s /bin/bash outsider
  mkdir -p "$r/var/lib/systemd/linger"
  touch "$r/var/lib/systemd/linger/tester" "$r/var/lib/systemd/linger/second" "$r/var/lib/systemd/linger/outsider"
  echo schedd-system-test > "$r/etc/hostname"
  # No getty on the container's console (it would hold the passive console), no machine-id conflicts.
  chroot "$r" systemctl mask console-getty.service getty@tty1.service >/dev/null 2>&1 || true
  rm -f "$r/etc/machine-id"; : > "$r/etc/machine-id"
  chroot "$r" apt-get clean
  touch "$r/.complete"
  rm -rf "$root"
  mv "$r" "$root"
  # Older roots (another package list) are dead weight.
  for old in "$cache"/rootfs-*; do [ "$old" = "$root" ] || rm -rf "$old"; done
  echo "rootfs: built in $(( $(date +%s) - start )) s" >&2
  echo "$root"
}
main "$@"
