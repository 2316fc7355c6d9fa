# Sourced by Tests/System/run.sh: boots systemd 252 as PID 1 of a systemd-nspawn container over a copy
# (an overlay) of the cached Debian 12 root (Tests/System/rootfs.sh), and runs commands in it as root
# or as a logged-in user. One machine at a time per sourcing shell.
#   make_machine ROOTFS                     sets MACHINE_DIR, MACHINE_ROOT (the root to boot, writable: stage files)
#   boot_machine [nspawn options…]          boots it; sets NSPAWN_PID, LEADER (the container's PID 1 here)
#   ct CMD…                                 CMD as root inside (all namespaces of PID 1)
#   as_user USER CMD…                       CMD as USER in a real logind session (pam_systemd: XDG_RUNTIME_DIR,
#                                           DBUS_SESSION_BUS_ADDRESS), stdin/stdout/stderr passed, its exit status
#   stop_machine                            poweroff, wait for nspawn (by PID), unmount, remove dir and cgroups
# Everything it makes is named after MACHINE_DIR (mktemp): /var/tmp/schedd-system-XXXXXX, cgroups
# /sys/fs/cgroup/{unified,systemd}/schedd-system-XXXXXX. Only processes it started are signalled, by PID.

MACHINE_DIR="" MACHINE_ROOT="" NSPAWN_PID="" LEADER="" MACHINE_CGROUPS=() MACHINE_OVERLAY=0
CT_PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin

# Prints the PID of the container's PID 1 as seen from here (nspawn's child that runs systemd), or
# nothing yet. nspawn's first child is a helper that forks PID 1 and exits, so the child must be checked.
machine_leader() {
  local child
  for child in $(cat "/proc/$NSPAWN_PID/task/$NSPAWN_PID/children" 2>/dev/null || true); do
    if [ "$(cat "/proc/$child/comm" 2>/dev/null)" = systemd ]; then echo "$child"; return 0; fi
  done
  return 0
}

make_machine() {
  local rootfs="$1"
  MACHINE_DIR=$(mktemp -d /var/tmp/schedd-system-XXXXXX)
  local name; name=$(basename "$MACHINE_DIR")
  mkdir -p "$MACHINE_DIR/upper" "$MACHINE_DIR/work" "$MACHINE_DIR/root"
  MACHINE_ROOT="$MACHINE_DIR/root"
  # An overlay makes the per-run copy in milliseconds; cp -a (~5 s) where overlayfs is refused.
  if mount -t overlay overlay -o "lowerdir=$rootfs,upperdir=$MACHINE_DIR/upper,workdir=$MACHINE_DIR/work" \
       "$MACHINE_ROOT" 2>/dev/null; then
    MACHINE_OVERLAY=1
  else
    MACHINE_OVERLAY=0
    cp -a "$rootfs/." "$MACHINE_ROOT/"
  fi
  # A machine id of its own (an empty /etc/machine-id would make systemd treat the boot as the first
  # one and apply presets).
  tr -d '-' </proc/sys/kernel/random/uuid >"$MACHINE_ROOT/etc/machine-id"
  # pam_env warns at every login without it (minbase has no locales package).
  [ -e "$MACHINE_ROOT/etc/default/locale" ] || echo 'LANG=C.UTF-8' >"$MACHINE_ROOT/etc/default/locale"
}

boot_machine() {
  local name; name=$(basename "$MACHINE_DIR")
  # nspawn runs in cgroups of its own (with --keep-unit it stays where it is started; from the root cgroup
  # the container cannot boot), in both hierarchies the host mounts.
  MACHINE_CGROUPS=()
  local h
  for h in unified systemd; do
    if [ -d "/sys/fs/cgroup/$h" ]; then
      mkdir "/sys/fs/cgroup/$h/$name"
      MACHINE_CGROUPS+=("/sys/fs/cgroup/$h/$name")
    fi
  done
  [ ${#MACHINE_CGROUPS[@]} -gt 0 ] || { echo "boot: no /sys/fs/cgroup/unified or /sys/fs/cgroup/systemd here" >&2; return 1; }
  (
    for h in "${MACHINE_CGROUPS[@]}"; do echo "$BASHPID" > "$h/cgroup.procs"; done
    exec systemd-nspawn -q -D "$MACHINE_ROOT" -M "$name" -b --register=no --keep-unit --console=passive "$@"
  ) </dev/null >"$MACHINE_DIR/console.log" 2>&1 &
  NSPAWN_PID=$!
  LEADER=""
  local state="" i
  for i in $(seq 600); do
    kill -0 "$NSPAWN_PID" 2>/dev/null || { echo "boot: systemd-nspawn exited: $(tail -n 20 "$MACHINE_DIR/console.log")" >&2; return 1; }
    LEADER=$(machine_leader)
    if [ -n "$LEADER" ]; then
      state=$(nsenter -t "$LEADER" -a env -i PATH="$CT_PATH" systemctl is-system-running 2>/dev/null || true)
      case "$state" in
        running) return 0 ;;
        degraded)
          echo "boot: the container came up degraded; failed units:" >&2
          ct systemctl --failed --no-legend >&2 || true
          return 1 ;;
      esac
    fi
    sleep 0.05
  done
  echo "boot: systemd did not reach 'running' in 30 s (last state '$state'): $(tail -n 20 "$MACHINE_DIR/console.log")" >&2
  return 1
}

ct() {
  nsenter -t "$LEADER" -a env -i PATH="$CT_PATH" LANG=C.UTF-8 "$@"
}

as_user() {
  local user="$1"; shift
  ct systemd-run -q --pipe --wait --collect -p PAMName=login -p User="$user" -- "$@"
}

stop_machine() {
  [ -n "$MACHINE_DIR" ] || return 0
  if [ -n "$NSPAWN_PID" ] && kill -0 "$NSPAWN_PID" 2>/dev/null; then
    [ -n "$LEADER" ] || LEADER=$(machine_leader)
    [ -n "$LEADER" ] && ct systemctl poweroff --no-block >/dev/null 2>&1 || true
    local i
    for i in $(seq 300); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$NSPAWN_PID" 2>/dev/null; then
      echo "stop: the container did not power off in 30 s; killing its PID 1 ($LEADER)" >&2
      # SIGKILL of a PID namespace's init ends every process in it; nspawn then exits.
      [ -n "$LEADER" ] && kill -KILL "$LEADER" 2>/dev/null || true
      for i in $(seq 100); do kill -0 "$NSPAWN_PID" 2>/dev/null || break; sleep 0.1; done
      kill -0 "$NSPAWN_PID" 2>/dev/null && kill -KILL "$NSPAWN_PID" 2>/dev/null || true
    fi
    wait "$NSPAWN_PID" 2>/dev/null || true
  fi
  NSPAWN_PID="" LEADER=""
  # Whatever is left in the machine's cgroups (nspawn killed before its PID 1, a boot that failed half
  # way) is the machine's own: cgroup.kill ends the whole subtree, then it can be removed.
  local cg i
  for cg in "${MACHINE_CGROUPS[@]}"; do
    [ -f "$cg/cgroup.kill" ] || continue
    if [ -n "$(find "$cg" -name cgroup.procs -exec cat {} + 2>/dev/null)" ]; then
      echo "stop: killing what is left in $cg" >&2
      echo 1 >"$cg/cgroup.kill" 2>/dev/null || true
    fi
  done
  if [ "$MACHINE_OVERLAY" = 1 ]; then umount "$MACHINE_ROOT" 2>/dev/null || umount -l "$MACHINE_ROOT" 2>/dev/null || true; fi
  MACHINE_OVERLAY=0
  for cg in "${MACHINE_CGROUPS[@]}"; do
    # systemd inside made sub-cgroups (init.scope, system.slice, …); remove the emptied tree bottom-up
    # (a cgroup stays busy for a moment after its last process died: retry for up to 5 s).
    for i in $(seq 50); do
      [ -d "$cg" ] || break
      find "$cg" -depth -type d -exec rmdir {} \; 2>/dev/null || true
      [ -d "$cg" ] && sleep 0.1
    done
    [ -d "$cg" ] && echo "stop: could not remove cgroup $cg" >&2
  done
  MACHINE_CGROUPS=()
  if mountpoint -q "$MACHINE_ROOT"; then
    echo "stop: $MACHINE_ROOT is still mounted; leaving $MACHINE_DIR" >&2
  else
    rm -rf "$MACHINE_DIR"
  fi
  MACHINE_DIR="" MACHINE_ROOT=""
}
