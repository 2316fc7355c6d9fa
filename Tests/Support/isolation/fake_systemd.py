#!/usr/bin/python3
"""A stand-in for the systemd user manager on a private bus (/usr/bin/python3: python3-dbus, python3-gi):
owns org.freedesktop.systemd1 and serves org.freedesktop.systemd1.Manager.StartTransientUnit
(ssa(sv)a(sa(sv)) -> o). It records each call and runs the unit's ExecStart the way the manager would:
as ITS child (so not a descendant of the caller), in a new session, with its own environment plus the
unit's Environment= and INVOCATION_ID. Refuses a unit name that does not end in .service.

    fake_systemd.py --address ADDR --log LOG

LOG gets {"event": "ready"} first, then {"event": "StartTransientUnit", "name", "mode", "properties",
"sender", "pid"} per call (pid: the started process).
"""
import argparse, json, os, signal, subprocess, sys, time, uuid

import dbus
import dbus.mainloop.glib
import dbus.service
from gi.repository import GLib


def plain(value):
    if isinstance(value, (dbus.Array, list, dbus.Struct, tuple)):
        return [plain(v) for v in value]
    if isinstance(value, dbus.Boolean):
        return bool(value)
    return str(value)


class Manager(dbus.service.Object):
    def __init__(self, bus, log):
        super().__init__(bus, "/org/freedesktop/systemd1")
        self.log = log
        self.jobs = 0
        self.children = []

    @dbus.service.method("org.freedesktop.systemd1.Manager", in_signature="ssa(sv)a(sa(sv))", out_signature="o",
                         sender_keyword="sender")
    def StartTransientUnit(self, name, mode, properties, aux, sender=None):
        props = {str(k): plain(v) for k, v in properties}
        if not str(name).endswith(".service"):
            raise dbus.exceptions.DBusException("not a service", name="org.freedesktop.systemd1.UnitTypeUnsupported")
        pid = None
        for path, argv, _ignore in props.get("ExecStart", []):
            env = dict(os.environ, INVOCATION_ID=uuid.uuid4().hex)
            for entry in props.get("Environment", []):
                key, _, value = entry.partition("=")
                env[key] = value
            child = subprocess.Popen(argv, executable=path, env=env, start_new_session=True, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            self.children.append(child)
            pid = child.pid
        self.log({"event": "StartTransientUnit", "name": str(name), "mode": str(mode), "properties": props,
                  "sender": str(sender), "pid": pid, "manager_pid": os.getpid()})
        self.jobs += 1
        GLib.timeout_add(50, self.reap)
        return dbus.ObjectPath("/org/freedesktop/systemd1/job/%d" % self.jobs)

    def reap(self):
        self.children = [c for c in self.children if c.poll() is None]
        return bool(self.children)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--address", required=True)
    parser.add_argument("--log", required=True)
    args = parser.parse_args()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: os._exit(0))

    def log(entry):
        with open(args.log, "a", encoding="utf-8") as f:
            f.write(json.dumps(dict(entry, t=time.time())) + "\n")

    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(args.address)
    manager = Manager(bus, log)
    bus.request_name("org.freedesktop.systemd1")
    log({"event": "ready", "pid": os.getpid()})
    GLib.MainLoop().run()
    return manager


if __name__ == "__main__":
    sys.exit(main())
