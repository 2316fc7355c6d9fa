"""A blocking client for schedd's D-Bus API (org.schedd.Scheduler1), on jeepney.

Every call waits for the daemon's reply, and a reply means the change is durable (the daemon
commits to SQLite before it answers). Results are the JSON the daemon sends, decoded: lists and
dicts with the shapes ``schedd --json`` prints (CONTRACT §6–§7).

Why jeepney: it is a pure-Python implementation of the D-Bus wire protocol — nothing to compile,
no libdbus, no GLib main loop (dbus-python needs both and cannot be pip-installed without a C
toolchain; pydbus sits on PyGObject; dbus-fast is compiled and asyncio-only). It is maintained,
small, has no dependencies of its own, and Debian ships it as ``python3-jeepney``.
"""

from __future__ import annotations

import json
import re
import time
from collections import deque
from dataclasses import dataclass
from datetime import timedelta
from typing import Any, Iterable, Iterator

from jeepney import DBusAddress, HeaderFields, MatchRule, MessageType, new_method_call
from jeepney.io.blocking import DBusConnection, open_dbus_connection

from .errors import DaemonUnreachable, RunawayTimers, ScheddError, error_for

SERVICE = "org.schedd.Scheduler1"
OBJECT_PATH = "/org/schedd/Scheduler1"
INTERFACE = "org.schedd.Scheduler1"

#: The caps of one ``PushBatch`` call (README, "Limits"): over either the daemon refuses the whole call.
MAX_BATCH_ENTRIES = 10_000
MAX_BATCH_BYTES = 8 << 20


def batch_pages(sizes: list[int], max_entries: int = MAX_BATCH_ENTRIES,
                max_bytes: int = MAX_BATCH_BYTES) -> list[range]:
    """Splits pushes of UTF-8 byte sizes ``sizes`` (in order) into consecutive ranges of at most
    ``max_entries`` pushes and ``max_bytes`` bytes each; a push over ``max_bytes`` alone gets its own
    range (the daemon answers it). Every index is in exactly one range, in order. O(n). The Python
    client's one batch splitter (the same rule as ScheddClient's ``pushBatchPages``)."""
    if max_entries < 1 or max_bytes < 1:
        raise ValueError("a page holds at least one push")
    pages: list[range] = []
    start = total = 0
    for i, size in enumerate(sizes):
        if i > start and (i - start == max_entries or total + size > max_bytes):
            pages.append(range(start, i))
            start, total = i, 0
        total += size
    if start < len(sizes):
        pages.append(range(start, len(sizes)))
    return pages


class Cancelled(list):
    """The ids a ``Track``/``Cancel``/``CancelRun`` cancelled, as a list of at most one reply's worth
    (1,000 ids in due order); ``total`` is how many were cancelled and ``more`` whether the list
    leaves some out (the reply stays bounded however many were cancelled)."""

    def __init__(self, ids: Iterable[str], total: int, more: bool):
        super().__init__(ids)
        self.total = total
        self.more = more


#: How long a call may take. Moving the clock delivers everything due before it answers, which can
#: be a lot (a year of a per-minute schedule): the CLI allows an hour, and so does this client.
CLOCK_TIMEOUT = 3600.0
CALL_TIMEOUT = 25.0


@dataclass(frozen=True)
class Signal:
    """One signal of org.schedd.Scheduler1: ``name`` (``NotificationShown``…) and its arguments.
    ``notification`` is the decoded JSON of ``NotificationShown``, else None."""

    name: str
    id: str
    args: tuple
    notification: dict | None = None


def span_microseconds(span: str | int | float | timedelta) -> int:
    """A span as microseconds: a ``timedelta``, a number of seconds, or a systemd time span
    (``90s``, ``15min``, ``2h``, ``1d 6h``, ``1h30m``, ``2weeks``; a bare number is seconds)."""
    if isinstance(span, timedelta):
        return span // timedelta(microseconds=1)
    if isinstance(span, (int, float)):
        return round(span * 1_000_000)
    units = {
        "us": 1, "usec": 1, "ms": 1_000, "msec": 1_000, "s": 10**6, "sec": 10**6, "second": 10**6, "seconds": 10**6,
        "m": 60 * 10**6, "min": 60 * 10**6, "minute": 60 * 10**6, "minutes": 60 * 10**6,
        "h": 3600 * 10**6, "hr": 3600 * 10**6, "hour": 3600 * 10**6, "hours": 3600 * 10**6,
        "d": 86400 * 10**6, "day": 86400 * 10**6, "days": 86400 * 10**6,
        "w": 7 * 86400 * 10**6, "week": 7 * 86400 * 10**6, "weeks": 7 * 86400 * 10**6,
    }
    text = span.strip()
    parts = re.findall(r"\s*(\d+(?:\.\d+)?)\s*([a-z]*)", text)
    if not text or "".join(n + u for n, u in parts) != re.sub(r"\s+", "", text):
        raise ValueError(f"not a time span: {span!r} (use 90s, 15min, 2h, '1d 6h')")
    total = 0
    for number, unit in parts:
        if unit not in units and unit != "":
            raise ValueError(f"not a time span: {span!r} (unknown unit {unit!r})")
        total += round(float(number) * units.get(unit, 10**6))
    return total


class Client:
    """A connection to schedd on one bus.

    ``bus`` is ``"SESSION"`` (``$DBUS_SESSION_BUS_ADDRESS``), ``"SYSTEM"`` or a D-Bus address
    (``unix:path=/tmp/…``). ``app`` declares the app id the calls act for (``DeclareApp``; a
    sandboxed caller gets its sandbox's id whatever it declares). Not thread-safe: use one client
    per thread.
    """

    def __init__(self, bus: str = "SESSION", app: str | None = None):
        try:
            self._connection: DBusConnection = open_dbus_connection(bus=bus)
        except (OSError, KeyError, ValueError) as error:
            raise DaemonUnreachable(f"cannot connect to the bus {bus!r}: {error}") from error
        self._address = DBusAddress(OBJECT_PATH, bus_name=SERVICE, interface=INTERFACE)
        self._signals: deque = deque(maxlen=100_000)
        self._filter = None
        self.identity: dict | None = None
        if app is not None:
            try:
                self.identity = self.declare_app(app)
            except Exception:
                self._connection.close()
                raise

    def declare_app(self, app: str) -> dict:
        """Makes the calls that follow on this connection act for ``app`` (``""``: the caller's own);
        returns ``{"app", "source", "sandboxed"}``."""
        return json.loads(self.call("DeclareApp", "s", app)[0])

    def close(self) -> None:
        """Closes the connection."""
        if self._filter is not None:
            self._filter.close()
        self._connection.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def call(self, method: str, signature: str = "", *args: Any, timeout: float = CALL_TIMEOUT) -> tuple:
        """Calls ``method`` of org.schedd.Scheduler1; returns the reply's arguments.
        Raises the :mod:`schedd.errors` class that mirrors the D-Bus error."""
        message = new_method_call(self._address, method, signature or None, args)
        try:
            reply = self._connection.send_and_get_reply(message, timeout=timeout)
        except TimeoutError as error:
            raise DaemonUnreachable(f"the schedd daemon did not answer {method} within {timeout} s") from error
        except (OSError, EOFError) as error:
            raise DaemonUnreachable(f"the bus connection failed during {method}: {error}") from error
        if reply.header.message_type == MessageType.error:
            name = reply.header.fields.get(HeaderFields.error_name, "")
            text = reply.body[0] if reply.body and isinstance(reply.body[0], str) else name
            raise error_for(name, text).with_detail(list(reply.body[1:]))
        self._collect_signals()
        return reply.body

    # Pushes, events, cancels ------------------------------------------------------------------

    def push(self, push: dict | str) -> list[dict]:
        """Applies one push (a dict or its JSON text); returns one outcome per schedule:
        ``{"id", "status", "next"}`` (+ ``"cancelled"`` for a ``bk.cancel``)."""
        text = push if isinstance(push, str) else json.dumps(push)
        return json.loads(self.call("Push", "s", text)[0])

    def push_batch(self, pushes: Iterable[dict | str]) -> list[list[dict] | dict]:
        """Applies many pushes in one group commit; one answer per push, in order: the outcomes,
        or ``{"error": …}`` for a rejected push (the others still apply). Sent in calls within the
        daemon's caps (``batch_pages``: 10,000 pushes and 8 MiB each), each one group commit."""
        texts = [p if isinstance(p, str) else json.dumps(p) for p in pushes]
        answers: list = []
        for page in batch_pages([len(t.encode()) for t in texts]):
            answers += [json.loads(answer) for answer in self.call("PushBatch", "as", texts[page.start:page.stop])[0]]
        return answers

    def track(self, event: str, data: Any = None) -> Cancelled:
        """Reports an event; returns the ids it cancelled (schedules whose ``cancelOn`` holds it),
        bounded (``Cancelled``)."""
        return Cancelled(*self._cancelled("Track", "ss", event, "" if data is None else json.dumps(data)))

    def cancel(self, id: str) -> Cancelled:
        """Cancels one schedule (and leaves a tombstone); returns the ids cancelled."""
        return Cancelled(*self._cancelled("Cancel", "s", id))

    def cancel_run(self, run: str) -> Cancelled:
        """Cancels every schedule of a run; returns the ids cancelled, bounded (``Cancelled``)."""
        return Cancelled(*self._cancelled("CancelRun", "s", run))

    def _cancelled(self, method: str, signature: str, *args):
        count, ids, more = self.call(method, signature, *args)
        return list(ids), int(count), bool(more)

    # Reading ------------------------------------------------------------------------------------

    def pending(self) -> list[dict]:
        """Every pending schedule, soonest first (read page by page with ``ListPage``)."""
        result: list[dict] = []
        after = ""
        while True:
            text, after = self.call("ListPage", "su", after, 1000)
            result += json.loads(text)
            if not after:
                return result

    def pending_count(self) -> int:
        """How many schedules are pending (the fake-timer libraries' ``countTimers``)."""
        return len(self.pending())

    def history(self, limit: int | None = None) -> list[dict]:
        """History records, oldest first: the newest ``limit`` (all when None), read page by page."""
        pages: list[list[dict]] = []
        before, count = 0, 0
        while limit is None or count < limit:
            want = 1000 if limit is None else min(1000, limit - count)
            text, before = self.call("HistoryPage", "tu", before, want)
            page = json.loads(text)
            pages.append(page)
            count += len(page)
            if before == 0 or not page:
                break
        records = [r for page in reversed(pages) for r in page]
        return records if limit is None else records[-limit:] if limit else []

    # The clock ---------------------------------------------------------------------------------

    def clock_show(self) -> dict:
        """``{"now", "zone", "fake"}``."""
        return json.loads(self.call("ClockShow")[0])

    def clock_set(self, when: str) -> dict:
        """A wall-clock step (like ``date -s``): what it jumps over is late — shown at once within
        its grace, else missed. Fake clock only."""
        return json.loads(self.call("ClockSet", "s", when, timeout=CLOCK_TIMEOUT)[0])

    def clock_advance(self, span: str | int | float | timedelta) -> dict:
        """Time passing: everything due in the span fires on time, in due order; returns after all
        of it was delivered and recorded. Fake clock only."""
        return json.loads(self.call("ClockAdvance", "t", span_microseconds(span), timeout=CLOCK_TIMEOUT)[0])

    def clock_next(self) -> dict:
        """Time passing up to the next due instant, delivering what is due then (nothing when
        nothing is pending). Fake clock only."""
        return json.loads(self.call("ClockNext", timeout=CLOCK_TIMEOUT)[0])

    def clock_sleep(self, span: str | int | float | timedelta) -> dict:
        """The machine sleeps for ``span`` and resumes (CONTRACT §11): the wall clock moves forward and
        what fell due meanwhile is late — shown at once within its grace, more than the daemon's fold
        threshold (3) of one app folded into one summary, alarms never. Returns after all of it was
        delivered and recorded; ``status()["sleep"]`` then shows the sleep and the resume. Fake clock only."""
        return json.loads(self.call("ClockSleep", "t", span_microseconds(span), timeout=CLOCK_TIMEOUT)[0])

    def status(self) -> dict:
        """What ``schedd status --json`` prints: version, database, notifier and its server, pending and
        snoozed counts, the next due, ``wake`` (``armed`` or ``unavailable`` with the reason) and ``sleep``."""
        return json.loads(self.call("Status")[0])

    def clock_zone(self, zone: str) -> dict:
        """A device-zone change (as a new /etc/localtime): floating schedules keep their wall time."""
        return json.loads(self.call("ClockZone", "s", zone)[0])

    def run_until_idle(self, limit: int = 1000) -> int:
        """Moves the clock from due instant to due instant until nothing is pending; returns how
        many steps it took. Raises :class:`RunawayTimers` after ``limit`` steps with schedules
        still pending (a repeating schedule without ``until`` never goes idle)."""
        steps = 0
        while self.pending_count() > 0:
            if steps >= limit:
                raise RunawayTimers(f"run_until_idle: still {self.pending_count()} pending after {limit} steps "
                                    "(a repeating schedule never goes idle; raise limit or advance by a span)")
            self.clock_next()
            steps += 1
        return steps

    # Signals -------------------------------------------------------------------------------------

    def subscribe(self, all_apps: bool = False) -> dict:
        """Starts receiving this daemon's signals (``NotificationShown``, ``…Cancelled``, ``…Opened``,
        ``…Dismissed``) for this connection's app — or for every app with ``all_apps`` (unsandboxed
        callers only) — and returns the identity subscribed to (``{"app", "source", "sandboxed",
        "allApps"}``). schedd sends them to subscribed connections only (unicast; nothing is broadcast),
        until the connection closes. Read them with :meth:`signals` or :meth:`wait_for_signal`."""
        if self._filter is None:
            # The daemon addresses its signals to this connection; the filter picks them off the socket.
            rule = MatchRule(type="signal", interface=INTERFACE, path=OBJECT_PATH)
            self._filter = self._connection.filter(rule, queue=self._signals)
        return json.loads(self.call("SubscribeAllApps" if all_apps else "Subscribe")[0])

    def signals(self) -> Iterator[Signal]:
        """The signals received so far (since :meth:`subscribe`), oldest first, taken from the queue."""
        self._collect_signals()
        while self._signals:
            yield _signal(self._signals.popleft())

    def wait_for_signal(self, name: str | None = None, timeout: float = 10.0) -> Signal:
        """The next signal (named ``name``, when given), waiting up to ``timeout`` seconds; others
        that arrive first are dropped. Raises TimeoutError."""
        if self._filter is None:
            raise ScheddError("wait_for_signal: call subscribe() first")
        deadline = time.monotonic() + timeout
        while True:
            if self._signals:
                message = self._signals.popleft()
            else:
                message = self._connection.recv_until_filtered(self._signals,
                                                               timeout=max(0.0, deadline - time.monotonic()))
            signal = _signal(message)
            if name is None or signal.name == name:
                return signal

    def _collect_signals(self) -> None:
        """Reads whatever is already waiting on the socket, so queued signals are seen."""
        if self._filter is None:
            return
        try:
            while True:
                self._connection.recv_messages(timeout=0)
        except TimeoutError:
            pass


def _signal(message) -> Signal:
    name = message.header.fields.get(HeaderFields.member, "")
    args = tuple(message.body)
    notification = json.loads(args[1]) if name == "NotificationShown" and len(args) > 1 else None
    return Signal(name=name, id=args[0] if args else "", args=args, notification=notification)
