#!/usr/bin/env bash
# scripts/install.sh as a normal user (issue 34 item 2, issue 36 item 2): run as root, it creates a
# throwaway user (dbus-daemon needs a passwd entry), becomes it with setpriv (no groups, a fresh HOME,
# nothing else in the environment), checks that
#   1. install.sh succeeds and says what it did;
#   2. the user unit is where the user manager looks (~/.local/share/systemd/user), the activation
#      file where the session bus looks (~/.local/share/dbus-1/services), both naming ~/.local/bin/schedd;
#   3. no file outside HOME belongs to that uid afterwards (it could write nowhere else: the only
#      other writable places, /tmp /var/tmp /dev/shm /run…, are searched too) and no system-wide
#      file was installed (no policy in /etc/dbus-1/system.d from this run);
#   4. D-Bus activation from the installed files works without systemd: a session dbus-daemon of that
#      user (its standard service directories, nothing configured) starts schedd through Exec= on the
#      first `schedd list`, which answers;
# and removes the user, its processes (by PID) and its files again.
# Usage (as root, after swift build): Tests/Support/install/test-user-install.sh [SCHEDD_BINARY]
# Prints a transcript; exits non-zero on the first failure.
set -euo pipefail
root="$(cd "$(dirname "$0")/../../.." && pwd)"
binary="${1:-$root/.build/debug/schedd}"
fail() { echo "test-user-install: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "run as root (it creates a throwaway user and becomes it with setpriv)"
[ -x "$binary" ] || fail "no schedd at $binary"
work=$(mktemp -d)
chmod 0755 "$work"
home="$work/home"
name="schedd-probe-$$"
bus_pid=""; daemon_pid=""
cleanup() {
  [ -z "$daemon_pid" ] || kill "$daemon_pid" 2>/dev/null || true
  [ -z "$bus_pid" ] || kill "$bus_pid" 2>/dev/null || true
  for pid in $daemon_pid $bus_pid; do
    for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  done
  getent passwd "$name" >/dev/null && userdel "$name" 2>/dev/null
  rm -rf "$work"
}
trap cleanup EXIT
useradd --system --user-group --no-create-home --home-dir "$home" --shell /usr/sbin/nologin "$name" || fail "useradd failed"
uid=$(id -u "$name")
mkdir -p "$home"
chown "$uid:$uid" "$home"
chmod 0700 "$home"
# The binary, where that uid can read it (the worktree may not be readable by others).
install -m 0755 "$binary" "$work/schedd"
as_user() {
  setpriv --reuid="$uid" --regid="$uid" --clear-groups \
    env -i HOME="$home" PATH="/usr/local/bin:/usr/bin:/bin" LANG=C.UTF-8 "$@"
}
policy=/etc/dbus-1/system.d/org.schedd.Scheduler1.conf
policy_before=$(stat -c %Y "$policy" 2>/dev/null || echo none)

echo "\$ scripts/install.sh PREFIX=\$HOME/.local BINARY=… --no-build    # as uid $uid, HOME=$home"
as_user bash "$root/scripts/install.sh" "PREFIX=$home/.local" "BINARY=$work/schedd" --no-build | tee "$work/install.log" \
  || fail "install.sh failed"
grep -q "^Installed schedd for .* only (nothing outside $home)" "$work/install.log" || fail "install.sh did not say what it did"

unit="$home/.local/share/systemd/user/schedd.service"
service="$home/.local/share/dbus-1/services/org.schedd.Scheduler1.service"
[ -f "$unit" ] || fail "no user unit at $unit"
[ -f "$service" ] || fail "no activation file at $service"
grep -qx "ExecStart=$home/.local/bin/schedd run --notifier desktop" "$unit" || fail "the unit does not run $home/.local/bin/schedd"
grep -qx "Exec=$home/.local/bin/schedd run --notifier desktop" "$service" || fail "the activation file does not run ~/.local/bin/schedd"
[ -x "$home/.local/bin/schedd" ] || fail "no ~/.local/bin/schedd"
[ -f "$home/.local/share/bash-completion/completions/schedd" ] || fail "no bash completion where bash-completion looks"
[ ! -e "$home/.local/lib/systemd" ] || fail "a unit went to ~/.local/lib/systemd, where systemd does not look"
echo "ok: user unit $unit, activation file $service"

outside=$(find / -xdev \( -path /proc -o -path /sys -o -path "$home" \) -prune -o -uid "$uid" -print 2>/dev/null || true)
for dir in /tmp /var/tmp /dev/shm /run /dev/mqueue; do
  [ -d "$dir" ] && outside+=$(find "$dir" -xdev \( -path "$home" \) -prune -o -uid "$uid" -print 2>/dev/null || true)
done
[ -z "$outside" ] || fail "files outside HOME belong to uid $uid: $outside"
[ "$(stat -c %Y "$policy" 2>/dev/null || echo none)" = "$policy_before" ] || fail "the system-bus policy $policy changed"
echo "ok: no file outside $home belongs to uid $uid; no system-wide file installed"

# D-Bus activation without systemd: a plain session bus of that user, its standard service dirs.
exec {fd}< <(as_user dbus-daemon --session --nofork --nopidfile --print-address=1 --print-pid=1 </dev/null 2>/dev/null)
read -r -t 30 -u "$fd" address || fail "the session bus did not start"
read -r -t 30 -u "$fd" bus_pid || fail "the session bus did not say its pid"
echo "\$ schedd list        # DBUS_SESSION_BUS_ADDRESS=$address, nothing running on it"
start=$(date +%s%N)
listed=$(as_user DBUS_SESSION_BUS_ADDRESS="$address" "$home/.local/bin/schedd" list 2>&1) \
  || fail "schedd list through D-Bus activation failed: $listed"
echo "$listed"
echo "ok: answered through D-Bus activation (Exec=) in $(( ($(date +%s%N) - start) / 1000000 )) ms"
owner=$(as_user busctl --address="$address" status org.schedd.Scheduler1 2>/dev/null | sed -n 's/^PID=//p')
[ -n "$owner" ] || fail "nobody owns org.schedd.Scheduler1 after the call"
[ "$(readlink "/proc/$owner/exe")" = "$home/.local/bin/schedd" ] || fail "the bus name is owned by $(readlink "/proc/$owner/exe"), not ~/.local/bin/schedd"
[ -f "$home/.local/state/schedd/schedd.db" ] || fail "the activated daemon keeps no database in ~/.local/state/schedd"
daemon_pid="$owner"
echo "ok: the activated daemon (PID $owner) is $home/.local/bin/schedd, its database in ~/.local/state/schedd"
echo "test-user-install: all passed"
