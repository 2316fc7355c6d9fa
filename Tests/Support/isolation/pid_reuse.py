#!/usr/bin/python3
"""The PID-reuse attempt of the isolation tests (run inside a fake Flatpak sandbox, /usr/bin/python3
with python3-jeepney):

    pid_reuse.py ADDRESS STATE_FILE GO_FILE

Process A connects to the bus (the bus records A's PID), writes {"pid": A, "name": unique name} to
STATE_FILE, forks B, which inherits the connection, and exits without a call. B waits until GO_FILE
exists — meanwhile the test lets A's PID go to an UNSANDBOXED process — then calls, on the inherited
connection, ListAllAppsPage("", 10) (allowed only to unsandboxed callers) and PendingCount, and
appends {"b": pid, "results": [{"method", "ok", "answer"|"error"}]} to STATE_FILE. If schedd decided
from the PID alone, it would take B for the unsandboxed process now holding A's PID.
"""
import json, os, sys, time

from jeepney import DBusAddress, MessageType, HeaderFields, new_method_call
from jeepney.io.blocking import open_dbus_connection

address, state, go = sys.argv[1:4]
connection = open_dbus_connection(bus=address)
with open(state, "w", encoding="utf-8") as f:
    f.write(json.dumps({"pid": os.getpid(), "name": connection.unique_name}) + "\n")
if os.fork() != 0:
    os._exit(0)  # A: gone, without a single call; B holds the connection
os.setsid()
deadline = time.monotonic() + 60
while not os.path.exists(go) and time.monotonic() < deadline:
    time.sleep(0.01)
schedd = DBusAddress("/org/schedd/Scheduler1", bus_name="org.schedd.Scheduler1", interface="org.schedd.Scheduler1")
results = []
for method, signature, args in (("ListAllAppsPage", "su", ("", 10)), ("PendingCount", None, ())):
    reply = connection.send_and_get_reply(new_method_call(schedd, method, signature, args), timeout=30)
    if reply.header.message_type == MessageType.error:
        results.append({"method": method, "ok": False,
                        "error": reply.header.fields.get(HeaderFields.error_name, "") + ": " + str(reply.body[0] if reply.body else "")})
    else:
        results.append({"method": method, "ok": True, "answer": [str(a) for a in reply.body]})
with open(state, "a", encoding="utf-8") as f:
    f.write(json.dumps({"b": os.getpid(), "results": results}) + "\n")
os._exit(0)
