#!/usr/bin/env bash
# Checks everything under units/ the way it is installed, failing on ANY diagnostic output:
#  1. scripts/install.sh into a temporary PREFIX (BINARY=/bin/true: `verify` wants ExecStart to exist);
#  2. `systemd-analyze verify --man=no` on the system unit and `--user` on the user unit;
#  3. dbus-daemon loads the system-bus policy (included into a private bus config) without a word;
#  4. the session activation file is read by dbus-daemon: org.schedd.Scheduler1 is activatable and
#     its Exec= names the installed binary.
# Usage: Tests/Support/verify-units.sh        (exit 0 = clean; prints what failed otherwise)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
tmp="$(mktemp -d)"
pids=()
cleanup() { for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done; rm -rf "$tmp"; }
trap cleanup EXIT
failed=0
fail() { echo "verify-units: $*" >&2; failed=1; }

prefix="$tmp/prefix"
# User and group `root` exist everywhere, so dbus-daemon has no unknown name to warn about in step 3.
"$root/scripts/install.sh" PREFIX="$prefix" BINARY=/bin/true SYSTEM_USER=root --no-build >"$tmp/install.log" 2>&1 \
  || { cat "$tmp/install.log" >&2; fail "install.sh failed"; exit 1; }
policy="/etc/dbus-1/system.d/org.schedd.Scheduler1.conf"
# install.sh puts the policy where dbus-daemon reads it: /etc for PREFIX≠/usr. Stage it instead.
"$root/scripts/install.sh" PREFIX="$prefix" DESTDIR="$tmp/stage" BINARY=/bin/true SYSTEM_USER=root --no-build \
  >>"$tmp/install.log" 2>&1 || { cat "$tmp/install.log" >&2; fail "install.sh (DESTDIR) failed"; exit 1; }
staged_policy="$tmp/stage$policy"
[ -f "$staged_policy" ] || fail "install.sh did not install the D-Bus policy ($policy)"

verify() {  # verify [--user] UNIT-FILE
  local out
  out="$(XDG_RUNTIME_DIR="$(mktemp -d -p "$tmp")" systemd-analyze verify --man=no "$@" 2>&1)" || true
  if [ -n "$out" ]; then fail "systemd-analyze verify $*:"; echo "$out" >&2; fi
}
verify --user "$prefix/lib/systemd/user/schedd.service"
verify "$prefix/lib/systemd/system/schedd-system.service"
for unit in "$root"/units/*.service; do
  case "$(basename "$unit")" in
    schedd.service|schedd-system.service|org.schedd.Scheduler1.service) ;;
    *) fail "units/$(basename "$unit") is not verified by this script: add it" ;;
  esac
done

# A private bus whose config includes the policy and serves the installed activation file.
cat >"$tmp/bus.conf" <<EOF
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:dir=$tmp</listen>
  <auth>EXTERNAL</auth>
  <servicedir>$prefix/share/dbus-1/services</servicedir>
  <policy context="default">
    <allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/>
  </policy>
  <include>$staged_policy</include>
</busconfig>
EOF
source "$root/Tests/Support/bus/private-bus.bash"
if BUS_LOG="$tmp/bus.err" start_private_bus --config-file="$tmp/bus.conf"; then
  address="$BUS_ADDRESS"
  pids+=("$BUS_PID")
  # The answer to a call comes after the bus has read its configuration and service directory, so
  # whatever it had to say about them is in its log by then (no fixed wait).
  dbus-send --bus="$address" --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus \
      org.freedesktop.DBus.ListActivatableNames 2>&1 | grep -q '"org\.schedd\.Scheduler1"' \
    || fail "org.schedd.Scheduler1 is not activatable from $prefix/share/dbus-1/services"
  # In the foreground dbus-daemon also reports that it may not raise its fd limit (no CAP_SYS_RESOURCE,
  # e.g. root in a user namespace): about the machine, not the policy; --fork used to hide it.
  grep -v 'Failed to set fd limit' "$tmp/bus.err" > "$tmp/bus.complaints" || true
  [ -s "$tmp/bus.complaints" ] && { fail "dbus-daemon complained about the policy or activation file:"; cat "$tmp/bus.complaints" >&2; }
else
  fail "dbus-daemon refused the config including the policy:"; cat "$tmp/bus.err" >&2
fi
exec_line="$(grep '^Exec=' "$prefix/share/dbus-1/services/org.schedd.Scheduler1.service" || true)"
exec_bin="$(echo "${exec_line#Exec=}" | awk '{print $1}')"
[ "$exec_bin" = "$prefix/bin/schedd" ] && [ -x "$exec_bin" ] || fail "activation Exec= is '$exec_line', not $prefix/bin/schedd"
grep -q '^SystemdService=schedd.service$' "$prefix/share/dbus-1/services/org.schedd.Scheduler1.service" \
  || fail "activation file does not name SystemdService=schedd.service"

[ "$failed" = 0 ] && echo "verify-units: all units, the activation file and the policy are clean"
exit "$failed"
