#!/usr/bin/python3
"""A recording org.freedesktop.Notifications server (Desktop Notifications spec 1.2) for tests.

Run with /usr/bin/python3 (Debian's python3-dbus and python3-gi):

    recording_server.py --log calls.jsonl [--address ADDR] [--caps body,body-markup,actions] [--hang]

- Owns org.freedesktop.Notifications on ADDR (default: $DBUS_SESSION_BUS_ADDRESS).
- Appends one JSON line per incoming call to --log, with its full arguments and receive time:
  {"t": <wall clock, s>, "mono": <CLOCK_MONOTONIC, s>, "method": "Notify", "sender": ":1.4",
   "args": {"app_name": …, "replaces_id": …, "app_icon": …, "summary": …, "body": …,
            "actions": […], "hints": {"urgency": {"sig": "y", "value": 1}, …}, "expire_timeout": -1},
   "reply": 7}
  The first line is {"event": "ready", "owner": ":1.3", "pid": …} once the name is owned.
- GetCapabilities answers --caps (comma-separated; default body,body-markup,actions).
- Notify returns a new id, or replaces_id when that notification is still open.
- CloseNotification(id) emits NotificationClosed(id, 3) for an open id (spec: "The NotificationClosed
  signal is emitted by this method").
- --hang: Notify and GetCapabilities never answer (to test the client's call timeout).
- Control interface org.schedd.test.NotifyControl at /org/schedd/test/Control, e.g.
    busctl --address=ADDR call org.freedesktop.Notifications /org/schedd/test/Control \
        org.schedd.test.NotifyControl EmitActionInvoked us 1 snooze
  EmitActionInvoked(u id, s key), EmitNotificationClosed(u id, u reason) (also forgets the id),
  EmitActivation(u id, s token, s key) — ActivationToken(id, token) then ActionInvoked(id, key), in that
  order, as servers of spec 1.2 do when the person clicks (the token lets the opened app take focus) —,
  Quit().
- SIGTERM/SIGINT/Quit exit at once with os._exit(0), so shutdown never blocks on a dying bus.
"""

import argparse
import json
import os
import signal
import time

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

IFACE = "org.freedesktop.Notifications"
PATH = "/org/freedesktop/Notifications"
CONTROL_IFACE = "org.schedd.test.NotifyControl"
CONTROL_PATH = "/org/schedd/test/Control"


def plain(value):
    """A dbus-python value as JSON, keeping the D-Bus type of variants (hints) visible."""
    if isinstance(value, dbus.Boolean):
        return bool(value)
    if isinstance(value, (dbus.Byte, dbus.Int16, dbus.UInt16, dbus.Int32, dbus.UInt32, dbus.Int64,
                          dbus.UInt64)):
        return int(value)
    if isinstance(value, dbus.Double):
        return float(value)
    if isinstance(value, (dbus.String, dbus.ObjectPath, dbus.Signature)):
        return str(value)
    if isinstance(value, (dbus.Array, list)):
        if value and isinstance(value[0], dbus.Byte):
            return [int(b) for b in value]
        return [plain(v) for v in value]
    if isinstance(value, (dbus.Struct, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, (dbus.Dictionary, dict)):
        return {str(k): plain(v) for k, v in value.items()}
    return repr(value)


def signature_of(value):
    table = [(dbus.Boolean, "b"), (dbus.Byte, "y"), (dbus.Int16, "n"), (dbus.UInt16, "q"),
             (dbus.Int32, "i"), (dbus.UInt32, "u"), (dbus.Int64, "x"), (dbus.UInt64, "t"),
             (dbus.Double, "d"), (dbus.ObjectPath, "o"), (dbus.Signature, "g"), (dbus.String, "s"),
             (dbus.Struct, "r"), (dbus.Dictionary, "a{}"), (dbus.Array, "a")]
    for kind, sig in table:
        if isinstance(value, kind):
            if sig == "a" and getattr(value, "signature", None):
                return "a" + str(value.signature)
            return sig
    return "?"


class Recorder:
    def __init__(self, path):
        self.file = open(path, "a", buffering=1, encoding="utf-8")

    def write(self, record):
        self.file.write(json.dumps(record, ensure_ascii=False) + "\n")
        self.file.flush()


class Server(dbus.service.Object):
    def __init__(self, bus, recorder, caps, hang):
        super().__init__(bus, PATH)
        self.recorder = recorder
        self.caps = caps
        self.hang = hang
        self.next_id = 1
        self.open_ids = set()

    def record(self, method, sender, args, reply=None):
        entry = {"t": time.time(), "mono": time.monotonic(), "method": method, "sender": str(sender),
                 "args": args}
        if reply is not None:
            entry["reply"] = reply
        self.recorder.write(entry)

    @dbus.service.method(IFACE, in_signature="", out_signature="as", sender_keyword="sender",
                         async_callbacks=("ok", "err"))
    def GetCapabilities(self, sender=None, ok=None, err=None):
        self.record("GetCapabilities", sender, {})
        if not self.hang:
            ok(dbus.Array(self.caps, signature="s"))

    @dbus.service.method(IFACE, in_signature="susssasa{sv}i", out_signature="u", sender_keyword="sender",
                         async_callbacks=("ok", "err"))
    def Notify(self, app_name, replaces_id, app_icon, summary, body, actions, hints, expire_timeout,
               sender=None, ok=None, err=None):
        if replaces_id != 0 and int(replaces_id) in self.open_ids:
            nid = int(replaces_id)
        else:
            nid = self.next_id
            self.next_id += 1
        args = {"app_name": str(app_name), "replaces_id": int(replaces_id), "app_icon": str(app_icon),
                "summary": str(summary), "body": str(body), "actions": [str(a) for a in actions],
                "hints": {str(k): {"sig": signature_of(v), "value": plain(v)} for k, v in hints.items()},
                "expire_timeout": int(expire_timeout)}
        self.record("Notify", sender, args, None if self.hang else nid)
        if not self.hang:
            self.open_ids.add(nid)
            ok(dbus.UInt32(nid))

    @dbus.service.method(IFACE, in_signature="u", out_signature="", sender_keyword="sender")
    def CloseNotification(self, nid, sender=None):
        self.record("CloseNotification", sender, {"id": int(nid)})
        if int(nid) in self.open_ids:
            self.open_ids.discard(int(nid))
            self.NotificationClosed(dbus.UInt32(nid), dbus.UInt32(3))

    @dbus.service.method(IFACE, in_signature="", out_signature="ssss", sender_keyword="sender")
    def GetServerInformation(self, sender=None):
        self.record("GetServerInformation", sender, {})
        return ("recording-server", "schedd-tests", "1", "1.2")

    @dbus.service.signal(IFACE, signature="uu")
    def NotificationClosed(self, nid, reason):
        pass

    @dbus.service.signal(IFACE, signature="us")
    def ActionInvoked(self, nid, key):
        pass

    @dbus.service.signal(IFACE, signature="us")
    def ActivationToken(self, nid, token):
        pass


class Control(dbus.service.Object):
    def __init__(self, bus, server):
        super().__init__(bus, CONTROL_PATH)
        self.server = server

    @dbus.service.method(CONTROL_IFACE, in_signature="us", out_signature="")
    def EmitActionInvoked(self, nid, key):
        self.server.ActionInvoked(dbus.UInt32(nid), dbus.String(key))

    @dbus.service.method(CONTROL_IFACE, in_signature="uss", out_signature="")
    def EmitActivation(self, nid, token, key):
        self.server.ActivationToken(dbus.UInt32(nid), dbus.String(token))
        self.server.ActionInvoked(dbus.UInt32(nid), dbus.String(key))

    @dbus.service.method(CONTROL_IFACE, in_signature="uu", out_signature="")
    def EmitNotificationClosed(self, nid, reason):
        self.server.open_ids.discard(int(nid))
        self.server.NotificationClosed(dbus.UInt32(nid), dbus.UInt32(reason))

    @dbus.service.method(CONTROL_IFACE, in_signature="", out_signature="")
    def Quit(self):
        GLib.idle_add(lambda: os._exit(0))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default=os.environ.get("DBUS_SESSION_BUS_ADDRESS"))
    parser.add_argument("--log", required=True, help="JSON-lines file the calls are appended to")
    parser.add_argument("--caps", default="body,body-markup,actions",
                        help="comma-separated GetCapabilities answer (empty for none)")
    parser.add_argument("--hang", action="store_true", help="never answer Notify/GetCapabilities")
    opts = parser.parse_args()
    if not opts.address:
        parser.error("no bus: give --address or set DBUS_SESSION_BUS_ADDRESS")

    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: os._exit(0))
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(opts.address)
    recorder = Recorder(opts.log)
    caps = [c for c in opts.caps.split(",") if c]
    server = Server(bus, recorder, caps, opts.hang)
    Control(bus, server)
    bus.request_name(IFACE, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    recorder.write({"event": "ready", "owner": bus.get_unique_name(), "pid": os.getpid(), "caps": caps})
    loop = GLib.MainLoop()
    # Python signal handlers run only between bytecodes: wake the loop regularly so SIGTERM is seen.
    GLib.timeout_add(100, lambda: True)
    loop.run()


if __name__ == "__main__":
    main()
