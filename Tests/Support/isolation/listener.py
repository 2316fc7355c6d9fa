#!/usr/bin/python3
"""An app's listener for the isolation tests (run with /usr/bin/python3: python3-dbus, python3-gi).

    listener.py --address ADDR --log LOG [--declare APP] [--try-all-apps] [--eavesdrop]

On start, on one connection: DeclareApp(APP) when given; UnifiedPush1.List (what it may read of the
push registrations); Scheduler1.Subscribe (its own app's signals); with --try-all-apps also
SubscribeAllApps (refused for a sandboxed caller). It adds a plain match for EVERY signal on the bus
(type='signal', no eavesdropping: what any peer may ask for) and logs each signal it receives; with
--eavesdrop it also asks for every signal addressed to anyone (eavesdrop='true': a spy's try, which the
bus's policy decides; a stock system bus refuses it to all but root).
One JSON line per event in LOG: {"event": "declare"|"list"|"subscribe"|"subscribe-all", "ok", "answer"|"error"},
{"event": "signal", "interface", "member", "sender", "destination", "args"}, then {"event": "ready"}.
Runs until SIGTERM (exits at once with os._exit).
"""
import argparse, json, os, signal, sys, time

import dbus
import dbus.mainloop.glib
from gi.repository import GLib

SCHEDD = ("org.schedd.Scheduler1", "/org/schedd/Scheduler1")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--log", required=True)
    parser.add_argument("--declare")
    parser.add_argument("--try-all-apps", action="store_true")
    parser.add_argument("--eavesdrop", action="store_true")
    args = parser.parse_args()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: os._exit(0))
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(args.address)

    def log(entry):
        with open(args.log, "a", encoding="utf-8") as f:
            f.write(json.dumps(dict(entry, t=time.time())) + "\n")

    def attempt(event, interface, member, *call_args):
        obj = bus.get_object(*SCHEDD)
        try:
            answer = obj.get_dbus_method(member, interface)(*call_args)
            log({"event": event, "ok": True, "answer": str(answer)})
        except dbus.exceptions.DBusException as error:
            log({"event": event, "ok": False, "error": error.get_dbus_name() + ": " + error.get_dbus_message()})

    def received(*signal_args, **keywords):
        log({"event": "signal", "interface": keywords.get("interface"), "member": keywords.get("member"),
             "sender": keywords.get("sender"), "destination": keywords.get("destination"),
             "args": [str(a) for a in signal_args]})

    bus.add_signal_receiver(received, interface_keyword="interface", member_keyword="member",
                            sender_keyword="sender", destination_keyword="destination")
    if args.eavesdrop:
        try:
            bus.add_match_string("type='signal',eavesdrop='true'")
            log({"event": "eavesdrop", "ok": True})
        except dbus.exceptions.DBusException as error:
            log({"event": "eavesdrop", "ok": False, "error": error.get_dbus_name() + ": " + error.get_dbus_message()})
    if args.declare:
        attempt("declare", "org.schedd.Scheduler1", "DeclareApp", args.declare)
    attempt("list", "org.schedd.UnifiedPush1", "List")
    attempt("subscribe", "org.schedd.Scheduler1", "Subscribe")
    if args.try_all_apps:
        attempt("subscribe-all", "org.schedd.Scheduler1", "SubscribeAllApps")
    log({"event": "ready", "unique_name": bus.get_unique_name()})
    GLib.MainLoop().run()


if __name__ == "__main__":
    sys.exit(main())
