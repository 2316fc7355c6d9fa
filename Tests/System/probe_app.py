#!/usr/bin/python3
"""The app org.example.Probe of the system suite: the command schedd launches when its notification is
opened. Records where it runs and who schedd thinks it is, as one JSON object in $HOME/probe-N.json
(N counts launches), then exits:
  argv       its command line (the deep link as %u when the push had one)
  cgroup     /proc/self/cgroup (the unit systemd started it in)
  inet       whether an AF_INET socket can be made (schedd.service has RestrictAddressFamilies=AF_UNIX)
  no_new_privs  NoNewPrivs of /proc/self/status (schedd.service has NoNewPrivileges=yes)
  identity   schedd's answer to DeclareApp("") on the session bus: the identity of this caller
Run with Debian's /usr/bin/python3 (python3-dbus)."""

import json
import os
import socket
import sys

import dbus

result = {"argv": sys.argv, "pid": os.getpid()}
with open("/proc/self/cgroup") as f:
    result["cgroup"] = f.read().strip()
try:
    socket.socket(socket.AF_INET, socket.SOCK_DGRAM).close()
    result["inet"] = True
except OSError as e:
    result["inet"] = False
    result["inet_error"] = str(e)
with open("/proc/self/status") as f:
    for line in f:
        if line.startswith("NoNewPrivs:"):
            result["no_new_privs"] = int(line.split()[1])
try:
    bus = dbus.SessionBus()
    scheduler = bus.get_object("org.schedd.Scheduler1", "/org/schedd/Scheduler1")
    result["identity"] = json.loads(str(scheduler.DeclareApp("", dbus_interface="org.schedd.Scheduler1")))
except Exception as e:  # recorded, and the check reports it
    result["identity_error"] = str(e)
home = os.environ.get("HOME", "/tmp")
n = 1
while os.path.exists(os.path.join(home, f"probe-{n}.json")):
    n += 1
tmp = os.path.join(home, f".probe-{n}.json.tmp")
with open(tmp, "w") as f:
    json.dump(result, f)
os.rename(tmp, os.path.join(home, f"probe-{n}.json"))
