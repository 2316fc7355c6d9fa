#!/usr/bin/python3
"""A fake desktop app for tests: owns its app id on the bus and serves org.freedesktop.Application.

Run with /usr/bin/python3 (Debian's python3-dbus and python3-gi):

    fake_app.py --app-id org.example.Reminders --log calls.jsonl [--address ADDR] [--fail]

- Owns APP_ID on ADDR (default: $DBUS_SESSION_BUS_ADDRESS) and exports org.freedesktop.Application
  at the path the Desktop Entry Specification derives from the id (`/org/example/Reminders`; `-` → `_`).
- Appends one JSON line per call to --log:
  {"method": "Open", "sender": ":1.7", "uris": ["reminders://todo/42"],
   "platform_data": {"activation-token": {"sig": "s", "value": "tok-1"}, …}}
  {"method": "ActivateAction", "action": "snooze", "parameter": [{"sig": "s", "value": "{…}"}], "platform_data": …}
  {"method": "Activate", "platform_data": …}
  The first line is {"event": "ready", "owner": ":1.6", "pid": …}.
- ActivateAction with a name GLib would refuse (outside [A-Za-z0-9.-], g_action_name_is_valid) is
  recorded, then answered as a GApplication answers it: org.freedesktop.DBus.Error.InvalidArgs
  "Unknown action ‘NAME’" (what GLib 2.74's Gio.Application answers for `show_offer`, tried by hand).
- --fail: every method answers with the error org.example.FakeApp.Error.Failed (after recording).
- SIGTERM/SIGINT exit at once with os._exit(0).
"""

import argparse
import json
import os
import signal

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

IFACE = "org.freedesktop.Application"


def typed(value):
    """A variant's value with its D-Bus type, as the recording server logs hints."""
    sig = "?"
    for kind, s in [(dbus.Boolean, "b"), (dbus.Byte, "y"), (dbus.Int32, "i"), (dbus.UInt32, "u"),
                    (dbus.Int64, "x"), (dbus.UInt64, "t"), (dbus.Double, "d"), (dbus.String, "s"),
                    (dbus.ObjectPath, "o"), (dbus.Array, "a"), (dbus.Dictionary, "a{}")]:
        if isinstance(value, kind):
            sig = s
            break
    if isinstance(value, (dbus.Array, list)):
        return {"sig": sig, "value": [str(v) for v in value]}
    if isinstance(value, (dbus.Boolean,)):
        return {"sig": sig, "value": bool(value)}
    if isinstance(value, (dbus.Byte, dbus.Int32, dbus.UInt32, dbus.Int64, dbus.UInt64)):
        return {"sig": sig, "value": int(value)}
    return {"sig": sig, "value": str(value)}


class InvalidArgs(dbus.DBusException):
    _dbus_error_name = "org.freedesktop.DBus.Error.InvalidArgs"


def glib_action_name_is_valid(name):
    return len(name) > 0 and all(c.isascii() and (c.isalnum() or c in ".-") for c in name)


class Failed(dbus.DBusException):
    _dbus_error_name = "org.example.FakeApp.Error.Failed"


class App(dbus.service.Object):
    def __init__(self, bus, path, log, fail):
        super().__init__(bus, path)
        self.log = open(log, "a", buffering=1, encoding="utf-8")
        self.fail = fail

    def record(self, entry):
        self.log.write(json.dumps(entry, ensure_ascii=False) + "\n")
        self.log.flush()
        if self.fail:
            raise Failed("the fake app was told to fail")

    @dbus.service.method(IFACE, in_signature="a{sv}", out_signature="", sender_keyword="sender")
    def Activate(self, platform_data, sender=None):
        self.record({"method": "Activate", "sender": str(sender),
                     "platform_data": {str(k): typed(v) for k, v in platform_data.items()}})

    @dbus.service.method(IFACE, in_signature="asa{sv}", out_signature="", sender_keyword="sender")
    def Open(self, uris, platform_data, sender=None):
        self.record({"method": "Open", "sender": str(sender), "uris": [str(u) for u in uris],
                     "platform_data": {str(k): typed(v) for k, v in platform_data.items()}})

    @dbus.service.method(IFACE, in_signature="sava{sv}", out_signature="", sender_keyword="sender")
    def ActivateAction(self, action, parameter, platform_data, sender=None):
        self.record({"method": "ActivateAction", "sender": str(sender), "action": str(action),
                     "parameter": [typed(p) for p in parameter],
                     "platform_data": {str(k): typed(v) for k, v in platform_data.items()}})
        if not glib_action_name_is_valid(str(action)):
            raise InvalidArgs("Unknown action \u2018%s\u2019" % action)


def object_path(app_id):
    return "/" + app_id.replace(".", "/").replace("-", "_")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", default=os.environ.get("DBUS_SESSION_BUS_ADDRESS"))
    parser.add_argument("--app-id", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--fail", action="store_true")
    opts = parser.parse_args()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: os._exit(0))
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(opts.address)
    app = App(bus, object_path(opts.app_id), opts.log, opts.fail)
    bus.request_name(opts.app_id, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    app.log.write(json.dumps({"event": "ready", "owner": bus.get_unique_name(), "pid": os.getpid()}) + "\n")
    GLib.timeout_add(100, lambda: True)
    GLib.MainLoop().run()


if __name__ == "__main__":
    main()
