#!/usr/bin/python3
"""One app's floods against another app's call (CONTRACT §8 "Fair service", issue 31 item 4).

Usage: fair_flood.py BUS_ADDRESS FLOOD_APP VICTIM_APP DEPTH RUNS

Sends, without waiting for any reply: 120 ``List(20, DEPTH)`` on each of 3 connections of FLOOD_APP,
``CancelRun("rK")`` for K < RUNS on a fourth, and ``DeclareApp`` + ``PendingCount`` on 100 new
connections of FLOOD_APP; meanwhile VICTIM_APP's ``PendingCount`` is timed, one probe after the
other on a thread of its own, from right behind the flood until every flood reply is in. Prints one JSON object: the probes' latencies (seconds, before
the flood and during it) and what the flood's calls were answered (reply or error names, counted).
"""
import json
import sys
import threading
import time

from jeepney import DBusAddress, HeaderFields, MessageType, new_method_call
from jeepney.io.blocking import open_dbus_connection

ADDRESS = DBusAddress("/org/schedd/Scheduler1", bus_name="org.schedd.Scheduler1", interface="org.schedd.Scheduler1")


def answer_name(reply):
    if reply.header.message_type == MessageType.error:
        return reply.header.fields.get(HeaderFields.error_name, "error")
    return "ok"


def connect(bus, app):
    c = open_dbus_connection(bus=bus)
    reply = c.send_and_get_reply(new_method_call(ADDRESS, "DeclareApp", "s", (app,)), timeout=60)
    assert answer_name(reply) == "ok", reply.body
    return c


def probe(victim):
    start = time.monotonic()
    reply = victim.send_and_get_reply(new_method_call(ADDRESS, "PendingCount"), timeout=120)
    assert answer_name(reply) == "ok", reply.body
    return time.monotonic() - start


def main():
    bus, flood_app, victim_app, depth, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5])
    victim = connect(bus, victim_app)
    idle = [probe(victim) for _ in range(5)]
    lists = [connect(bus, flood_app) for _ in range(3)]
    canceller = connect(bus, flood_app)
    expected = {}  # connection -> replies expected
    for c in lists:
        for _ in range(120):
            c.send(new_method_call(ADDRESS, "List", "uu", (20, depth)))
        expected[c] = 120
    for k in range(runs):
        canceller.send(new_method_call(ADDRESS, "CancelRun", "s", (f"r{k}",)))
    expected[canceller] = runs
    newcomers = []
    for _ in range(100):
        c = open_dbus_connection(bus=bus)
        c.send(new_method_call(ADDRESS, "DeclareApp", "s", (flood_app,)))
        c.send(new_method_call(ADDRESS, "PendingCount"))
        newcomers.append(c)
        expected[c] = 2
    flood_sent = time.monotonic()
    done = threading.Event()
    during = []

    def probing():
        while not done.is_set() or not during:
            during.append(probe(victim))

    prober = threading.Thread(target=probing)
    prober.start()
    answers = {}
    for c, n in expected.items():
        for _ in range(n):
            reply = c.receive(timeout=300)
            while reply.header.message_type not in (MessageType.method_return, MessageType.error):
                reply = c.receive(timeout=300)
            name = answer_name(reply)
            answers[name] = answers.get(name, 0) + 1
    done.set()
    prober.join()
    flood_seconds = time.monotonic() - flood_sent
    print(json.dumps({"idle": idle, "during": during, "answers": answers, "flood_seconds": flood_seconds}))


if __name__ == "__main__":
    main()
