#!/usr/bin/python3
"""A complete example app for schedd (docs/apps.md): "Reminders", app id org.example.Reminders.

It uses only the D-Bus API (dbus-python and GLib, Debian: python3-dbus python3-gi):

    reminders.py serve                          run the app: owns org.example.Reminders and serves
                                                org.freedesktop.Application (schedd opens it there)
    reminders.py remind ID WHEN TITLE [LINK]    schedule a reminder (WHEN: RFC 3339, e.g. 2026-12-24T18:00:00Z)
    reminders.py done ID                        cancel it
    reminders.py checkout                       report the event "checkout" (cancels reminders waiting for it)
    reminders.py list                           the app's pending reminders

Unsandboxed, the app names itself with DeclareApp; inside Flatpak schedd reads the id from the
sandbox and DeclareApp with the same id is a no-op (with another id it is refused).
Every call may use --address ADDR (default: the session bus).
"""

import json
import os
import sys

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib

APP_ID = "org.example.Reminders"
SCHEDD = ("org.schedd.Scheduler1", "/org/schedd/Scheduler1", "org.schedd.Scheduler1")


def connect(address):
    return dbus.bus.BusConnection(address) if address else dbus.SessionBus()


def scheduler(bus):
    """The org.schedd.Scheduler1 interface, acting for this app on this connection."""
    name, path, iface = SCHEDD
    proxy = dbus.Interface(bus.get_object(name, path), iface)
    identity = json.loads(proxy.DeclareApp(APP_ID))
    assert identity["app"] == APP_ID, identity
    return proxy


def remind(bus, rid, when, title, link=None):
    push = {"bk": {"local": {"id": rid, "at": when, "title": title, "cancelOn": ["checkout"],
                             "snoozeSeconds": [600]}}}
    if link:
        push["bk"]["deepLink"] = link
    return json.loads(scheduler(bus).Push(json.dumps(push)))


class Reminders(dbus.service.Object):
    """What schedd calls when the person clicks a notification (DBusActivatable=true)."""

    def __init__(self, bus):
        super().__init__(bus, "/" + APP_ID.replace(".", "/"))

    @dbus.service.method("org.freedesktop.Application", in_signature="a{sv}")
    def Activate(self, platform_data):
        print("activated", dict(platform_data), flush=True)

    @dbus.service.method("org.freedesktop.Application", in_signature="asa{sv}")
    def Open(self, uris, platform_data):
        # platform_data["activation-token"]: hand it to the toolkit to take focus (xdg-activation).
        print("open", [str(u) for u in uris], "token", platform_data.get("activation-token"), flush=True)

    @dbus.service.method("org.freedesktop.Application", in_signature="sava{sv}")
    def ActivateAction(self, action, parameter, platform_data):
        print("action", str(action), [str(p) for p in parameter], flush=True)


def serve(bus):
    app = Reminders(bus)
    bus.request_name(APP_ID)
    # schedd sends an app's signals only to its subscribed connections (unicast): Subscribe, then
    # handle NotificationOpened(id, action, app) as it arrives.
    bus.add_signal_receiver(lambda i, action, app_id: print("opened signal", str(i), str(action), flush=True),
                            signal_name="NotificationOpened", dbus_interface=SCHEDD[2])
    scheduler(bus).Subscribe()
    print("ready", flush=True)
    GLib.MainLoop().run()
    return app


def main(argv):
    address = None
    if len(argv) > 2 and argv[1] == "--address":
        address, argv = argv[2], [argv[0]] + argv[3:]
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = connect(address)
    command, args = (argv[1], argv[2:]) if len(argv) > 1 else ("help", [])
    if command == "serve":
        serve(bus)
    elif command == "remind":
        print(json.dumps(remind(bus, *args)))
    elif command == "done":
        count, ids, more = scheduler(bus).Cancel(args[0])  # at most 1,000 ids; `more` when there were others
        print(json.dumps(list(ids)))
    elif command == "checkout":
        count, ids, more = scheduler(bus).Track("checkout", "")
        print(json.dumps(list(ids)))
    elif command == "list":
        page, _ = scheduler(bus).ListPage("", 0)
        print(page)
    else:
        print(__doc__)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
