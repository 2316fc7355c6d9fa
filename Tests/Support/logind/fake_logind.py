#!/usr/bin/env python3
"""A fake org.freedesktop.login1 for schedd's sleep tests (CONTRACT §11 "Resume").

Owns org.freedesktop.login1 on the bus given (a private "system" bus), answers
Manager.Inhibit(what, who, why, mode) with the write end of a pipe as logind does, watches the read end
and logs when the holder closes it (the lock released), and emits Manager.PrepareForSleep(b) when told
through its control interface (org.schedd.test.LogindControl at /org/schedd/test/Logind):
EmitPrepareForSleep(b), Quit(). Every event is one JSON line in --log:
{"event": "ready"} / {"event": "inhibit", "what", "who", "why", "mode", "n"} /
{"event": "released", "n"} / {"event": "prepare-for-sleep", "start"}.
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

NAME = "org.freedesktop.login1"
PATH = "/org/freedesktop/login1"
MANAGER = "org.freedesktop.login1.Manager"
CONTROL_IFACE = "org.schedd.test.LogindControl"
CONTROL_PATH = "/org/schedd/test/Logind"


class Log:
    def __init__(self, path):
        self.path = path

    def write(self, record):
        record["t"] = time.time()
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(json.dumps(record) + "\n")


class Manager(dbus.service.Object):
    def __init__(self, bus, log):
        super().__init__(bus, PATH)
        self.log = log
        self.count = 0

    @dbus.service.method(MANAGER, in_signature="ssss", out_signature="h")
    def Inhibit(self, what, who, why, mode):
        self.count += 1
        n = self.count
        read_end, write_end = os.pipe()
        self.log.write({"event": "inhibit", "what": str(what), "who": str(who), "why": str(why),
                        "mode": str(mode), "n": n})

        def closed(fd, _condition):
            self.log.write({"event": "released", "n": n})
            os.close(fd)
            return False

        GLib.io_add_watch(read_end, GLib.PRIORITY_DEFAULT, GLib.IO_HUP | GLib.IO_ERR, closed)
        fd = dbus.types.UnixFd(write_end)  # dbus-python dups it
        os.close(write_end)
        return fd

    @dbus.service.signal(MANAGER, signature="b")
    def PrepareForSleep(self, start):
        self.log.write({"event": "prepare-for-sleep", "start": bool(start)})


class Control(dbus.service.Object):
    def __init__(self, bus, manager, loop):
        super().__init__(bus, CONTROL_PATH)
        self.manager = manager
        self.loop = loop

    @dbus.service.method(CONTROL_IFACE, in_signature="b", out_signature="")
    def EmitPrepareForSleep(self, start):
        self.manager.PrepareForSleep(bool(start))

    @dbus.service.method(CONTROL_IFACE, in_signature="", out_signature="")
    def Quit(self):
        GLib.idle_add(self.loop.quit)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--address", required=True)
    parser.add_argument("--log", required=True)
    opts = parser.parse_args()
    for signum in (signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, lambda *_: os._exit(0))
    dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
    bus = dbus.bus.BusConnection(opts.address)
    log = Log(opts.log)
    loop = GLib.MainLoop()
    manager = Manager(bus, log)
    Control(bus, manager, loop)
    bus.request_name(NAME, dbus.bus.NAME_FLAG_DO_NOT_QUEUE)
    log.write({"event": "ready", "owner": bus.get_unique_name(), "pid": os.getpid()})
    GLib.timeout_add(100, lambda: True)
    loop.run()


if __name__ == "__main__":
    main()
