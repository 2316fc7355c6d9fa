#!/usr/bin/env bash
# The Debian package end to end (needs root and a machine where installing schedd is fine, as CI's):
# builds it, lintian finds no errors, `dpkg -i` installs it and creates the group, a call on a private
# bus whose only service directory is the installed one activates /usr/bin/schedd through the
# installed D-Bus service file, and `dpkg --purge` removes every file it installed.
#   Tests/Support/deb/test-deb.sh [BINARY=.build/release/schedd]
set -euo pipefail
cd "$(dirname "$0")/../../.."
[ "$(id -u)" = 0 ] || { echo "test-deb: needs root (dpkg -i)" >&2; exit 1; }
if dpkg-query -W -f='${Status}' schedd 2>/dev/null | grep -q "install ok installed"; then
  echo "test-deb: a schedd package is already installed here; not touching it" >&2; exit 1
fi

work=$(mktemp -d)
bus_pid=""
cleanup() {
  if [ -n "$bus_pid" ]; then
    # The activated daemon exits with its bus (CONTRACT §9); stop the bus first, then anything left.
    daemon=$(cat "$work/daemon.pid" 2>/dev/null || true)
    kill "$bus_pid" 2>/dev/null || true
    if [ -n "$daemon" ]; then kill "$daemon" 2>/dev/null || true; fi
  fi
  dpkg --purge schedd >/dev/null 2>&1 || true
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "test-deb: FAIL: $*" >&2; exit 1; }

echo "-- build"
deb=$(bash scripts/build-deb.sh OUTDIR="$work" "$@")
echo "$deb"
echo "-- lintian (errors fail)"
lintian --fail-on error --allow-root "$deb" || fail "lintian reported errors"

echo "-- dpkg -i"
had_group=no; getent group schedd >/dev/null && had_group=yes
dpkg -i "$deb" >/dev/null
echo "group schedd: $( [ $had_group = yes ] && echo "already present (other tests make it)" || echo "created by preinst")"
getent group schedd >/dev/null || fail "preinst did not create group schedd"
getent passwd schedd >/dev/null || fail "preinst did not create user schedd"
for f in /usr/bin/schedd /usr/share/dbus-1/services/org.schedd.Scheduler1.service \
         /usr/share/dbus-1/system.d/org.schedd.Scheduler1.conf /usr/lib/systemd/user/schedd.service \
         /usr/share/dbus-1/system-services/org.schedd.Scheduler1.service \
         /usr/lib/systemd/system/schedd-system.service /usr/share/doc/schedd/copyright \
         /usr/share/dbus-1/interfaces/org.schedd.Scheduler1.xml /usr/share/dbus-1/interfaces/org.schedd.UnifiedPush1.xml; do
  [ -f "$f" ] || fail "$f not installed"
done
for page in man/*.[1-8]; do
  [ -f "$page" ] || continue
  [ -f "/usr/share/man/man${page##*.}/$(basename "$page").gz" ] || fail "manual page $page not installed"
done
[ ! -f completions/schedd.bash ] || [ -f /usr/share/bash-completion/completions/schedd ] || fail "bash completion not installed"
# The licence, in Debian's machine-readable copyright format (lintian's checks passed above).
head -1 /usr/share/doc/schedd/copyright | grep -qx 'Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/' \
  || fail "copyright is not in the machine-readable format"
grep -qx 'License: Apache-2.0' /usr/share/doc/schedd/copyright || fail "copyright does not say Apache-2.0"
# Every Documentation= of the installed units resolves on this system: man: pages through man -w,
# file: URIs to installed files.
bash Tests/Support/check-unit-docs.sh / /usr/lib/systemd/user/schedd.service /usr/lib/systemd/system/schedd-system.service \
  || fail "a Documentation= of an installed unit does not resolve"
grep -q '^Exec=/usr/bin/schedd ' /usr/share/dbus-1/services/org.schedd.Scheduler1.service \
  || fail "the installed service file does not run /usr/bin/schedd"

echo "-- activation through the installed service file"
cat > "$work/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=$work/bus</listen>
  <auth>EXTERNAL</auth>
  <servicedir>/usr/share/dbus-1/services</servicedir>
  <policy context="default"><allow send_destination="*"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
EOF
address="unix:path=$work/bus"
# Activated services inherit the bus's environment: their state goes to the scratch directory.
mkdir -p "$work/state"
env DBUS_SESSION_BUS_ADDRESS="$address" XDG_STATE_HOME="$work/state" HOME="$work" \
  dbus-daemon --config-file="$work/bus.conf" --nofork --nopidfile 2>"$work/bus.log" &
bus_pid=$!
for _ in $(seq 1 200); do [ -S "$work/bus" ] && break; sleep 0.05; done
[ -S "$work/bus" ] || fail "the private bus did not start: $(cat "$work/bus.log")"
export DBUS_SESSION_BUS_ADDRESS="$address"
dbus_call() { busctl --address="$address" call org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus "$@"; }
[ "$(dbus_call NameHasOwner s org.schedd.Scheduler1)" = "b false" ] || fail "schedd runs before any call"
dbus_call ListActivatableNames | grep -q '"org.schedd.Scheduler1"' || fail "the installed service file is not activatable"
/usr/bin/schedd clock show --json > "$work/clock.json" || fail "no daemon was activated: $(cat "$work/bus.log")"
grep -q '"fake":false' "$work/clock.json" || fail "unexpected ClockShow: $(cat "$work/clock.json")"
pid=$(dbus_call GetConnectionUnixProcessID s org.schedd.Scheduler1 | cut -d' ' -f2)
echo "$pid" > "$work/daemon.pid"
[ "$(readlink "/proc/$pid/exe")" = /usr/bin/schedd ] || fail "the activated daemon is $(readlink "/proc/$pid/exe")"
echo '{"bk":{"local":{"id":"deb:1","at":"2099-01-01T00:00:00Z","title":"From the package"}}}' \
  | /usr/bin/schedd push --json | grep -q '"status":"scheduled"' || fail "push to the activated daemon"
[ -f "$work/state/schedd/schedd.db" ] || fail "the activated daemon's database is not under XDG_STATE_HOME"
kill "$pid"
for _ in $(seq 1 200); do [ -d "/proc/$pid" ] || break; sleep 0.05; done
kill "$bus_pid"; wait "$bus_pid" 2>/dev/null || true; bus_pid=""

echo "-- dpkg --purge"
dpkg --purge schedd >/dev/null
dpkg-query -W -f='${Status}' schedd 2>/dev/null | grep -q "install ok installed" && fail "still installed"
for f in $(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ {print substr($6, 2)}'); do
  [ -e "$f" ] && fail "$f left behind after purge"
done
echo "test-deb: passed (built, lintian clean of errors, installed, activated, purged)"
