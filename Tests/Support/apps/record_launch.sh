#!/bin/sh
# Stands in for an app's program in a test desktop file (Exec=record_launch.sh LOG %U): appends one
# JSON line with its arguments and the activation environment, then exits 0.
log="$1"; shift
/usr/bin/python3 - "$log" "$@" <<'PY'
import json, os, sys
with open(sys.argv[1], "a", encoding="utf-8") as f:
    f.write(json.dumps({"argv": sys.argv[2:],
                        "XDG_ACTIVATION_TOKEN": os.environ.get("XDG_ACTIVATION_TOKEN"),
                        "DESKTOP_STARTUP_ID": os.environ.get("DESKTOP_STARTUP_ID")}) + "\n")
PY
