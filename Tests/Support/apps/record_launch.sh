#!/bin/sh
# Stands in for an app's program in a test desktop file (Exec=record_launch.sh LOG %U): appends one
# JSON line with its arguments, the activation environment, its pid, its parent's pid
# (launcher_parent: who started it), its ancestors (pids up to 1, as /proc had them while it ran),
# its session id and its cgroup, then exits 0.
log="$1"; shift
LAUNCH_PID=$$ LAUNCH_PARENT=$PPID /usr/bin/python3 - "$log" "$@" <<'PY'
import json, os, sys
pid = int(os.environ["LAUNCH_PID"])
ancestors, at = [], pid
while at > 1:
    try:
        at = int(open("/proc/%d/stat" % at).read().rsplit(")", 1)[1].split()[1])
    except OSError:
        break
    ancestors.append(at)
with open(sys.argv[1], "a", encoding="utf-8") as f:
    f.write(json.dumps({"argv": sys.argv[2:], "pid": pid, "launcher_parent": int(os.environ["LAUNCH_PARENT"]),
                        "ancestors": ancestors,
                        "sid": os.getsid(pid), "cgroup": open("/proc/%d/cgroup" % pid).read().strip(),
                        "INVOCATION_ID": os.environ.get("INVOCATION_ID"),
                        "XDG_ACTIVATION_TOKEN": os.environ.get("XDG_ACTIVATION_TOKEN"),
                        "DESKTOP_STARTUP_ID": os.environ.get("DESKTOP_STARTUP_ID")}) + "\n")
PY
