"""A private schedd for one test: ``schedd testbed --print-env`` started and stopped from Python.

The testbed is a dbus-daemon of its own (stock limits, nothing activatable) and ``schedd run`` with
a fake clock on a temporary database; nothing of the person's own session is used. Its clock moves
only when the test moves it, and every clock call returns after what fell due was delivered and
recorded, so assertions right after it see the result.
"""

from __future__ import annotations

import json
import os
import select
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from .client import Cancelled, Client, Signal
from .errors import TestbedError


def parse_instant(text: str | None) -> datetime | None:
    """An RFC 3339 instant as printed by schedd (``2026-12-24T17:00:00Z``) as an aware datetime."""
    if text is None:
        return None
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


@dataclass(frozen=True)
class Notification:
    """One shown notification: a line of the notifier (``schedd run --notifier stdout``)."""

    id: str
    title: str
    body: str | None
    due: datetime
    at: datetime
    late: float
    urgency: str
    run: str | None = None
    app: str | None = None
    raw: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_json(cls, value: dict) -> "Notification":
        return cls(id=value["id"], title=value.get("title", ""), body=value.get("body"),
                   due=parse_instant(value["due"]), at=parse_instant(value["at"]), late=value.get("late", 0),
                   urgency=value.get("urgency", "normal"), run=value.get("run"), app=value.get("app"), raw=value)


@dataclass(frozen=True)
class HistoryRecord:
    """One history record: ``event`` is fired, missed, cancelled, replaced, expired, closed, …"""

    id: str
    event: str
    at: datetime
    due: datetime | None
    reason: str | None
    late: float | None
    title: str | None
    message_id: str | None
    data: Any
    app: str | None = None
    folded: bool = False
    raw: dict = field(default_factory=dict, compare=False, repr=False)

    @classmethod
    def from_json(cls, value: dict) -> "HistoryRecord":
        return cls(id=value["id"], event=value["event"], at=parse_instant(value["at"]),
                   due=parse_instant(value.get("due")), reason=value.get("reason"), late=value.get("late"),
                   title=value.get("title"), message_id=value.get("messageId"), data=value.get("data"),
                   app=value.get("app"), folded=value.get("folded") is True, raw=value)


def find_schedd(binary: str | None = None) -> str:
    """The schedd executable: ``binary``, else ``$SCHEDD_BINARY``, else ``schedd`` on PATH."""
    candidate = binary or os.environ.get("SCHEDD_BINARY") or shutil.which("schedd")
    if not candidate:
        raise TestbedError("schedd not found: put it on PATH, set SCHEDD_BINARY, or pass --schedd-binary")
    return candidate


class Testbed:
    """A running testbed and a client connected to it.

    ``fake_clock``: where the clock starts (RFC 3339; default: now). ``tz``: the device zone
    (default UTC). ``app``: the app id the client declares. Use as a context manager, or call :meth:`stop`.
    """

    __test__ = False  # not a pytest test class

    def __init__(self, fake_clock: str | None = None, tz: str = "UTC", binary: str | None = None, keep: bool = False,
                 app: str | None = None):
        self.binary = find_schedd(binary)
        arguments = [self.binary, "testbed", "--print-env", "--json", "--tz", tz]
        if fake_clock:
            arguments += ["--fake-clock", fake_clock]
        if keep:
            arguments.append("--keep")
        try:
            started = subprocess.run(arguments, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
        except (OSError, subprocess.TimeoutExpired) as error:
            raise TestbedError(f"schedd testbed did not start: {error}") from error
        if started.returncode != 0:
            raise TestbedError(f"schedd testbed failed (exit {started.returncode}): {started.stderr.strip()}")
        variables = json.loads(started.stdout)
        self.address: str = variables["DBUS_SESSION_BUS_ADDRESS"]
        self.shown_path: str = variables["SCHEDD_TESTBED"]
        self.pid = int(variables["SCHEDD_TESTBED_PID"])
        self.environment: dict = dict(variables)
        try:
            self.client = Client(self.address, app=app)
            self.client.subscribe(all_apps=True)
        except Exception:
            self._terminate()
            raise

    def __enter__(self) -> "Testbed":
        return self

    def __exit__(self, *exc) -> None:
        self.stop()

    def stop(self) -> None:
        """Tears the testbed down (bus, daemon, temporary directory) and waits until it is gone."""
        if self.pid == 0:
            return
        self.client.close()
        self._terminate()

    def _terminate(self) -> None:
        pid, self.pid = self.pid, 0
        # The supervisor is not our child (it runs in a session of its own), so it cannot be waited
        # for; a pidfd turns readable when it exits, zombie or not.
        try:
            descriptor = os.pidfd_open(pid)
        except (AttributeError, OSError):
            descriptor = None
        try:
            os.kill(pid, signal.SIGTERM)
        except ProcessLookupError:
            return
        if descriptor is not None:
            try:
                if not select.select([descriptor], [], [], 30)[0]:
                    raise TestbedError(f"the testbed (pid {pid}) did not stop within 30 s")
            finally:
                os.close(descriptor)
            return
        deadline = time.monotonic() + 30
        while _alive(pid):
            if time.monotonic() > deadline:
                raise TestbedError(f"the testbed (pid {pid}) did not stop within 30 s")
            time.sleep(0.005)

    def client_for(self, app: str) -> Client:
        """Another client on this testbed acting for ``app`` (close it when done)."""
        return Client(self.address, app=app)

    # What the test does --------------------------------------------------------------------------

    def push(self, push: dict | str) -> list[dict]:
        """Applies one push; returns its outcomes (``[{"id", "status", "next"}]``)."""
        return self.client.push(push)

    def schedule(self, id: str, title: str, *, at: str | None = None, calendar: str | None = None,
                 **members: Any) -> dict:
        """Pushes one ``bk.local`` (``at`` or ``calendar``, plus any other members, e.g.
        ``cancelOn=["checkout"]``, ``alarm=True``, ``wake=True``); returns its outcome (with
        ``"wake": "armed"|"unavailable"`` for a wake schedule)."""
        local = {"id": id, "title": title, **members}
        if at is not None:
            local["at"] = at
        if calendar is not None:
            local["calendar"] = calendar
        return self.push({"bk": {"local": local}})[0]

    def track(self, event: str, data: Any = None) -> "Cancelled":
        return self.client.track(event, data)

    def cancel(self, id: str) -> "Cancelled":
        return self.client.cancel(id)

    def cancel_run(self, run: str) -> "Cancelled":
        return self.client.cancel_run(run)

    def advance(self, span: str | int | float | timedelta) -> datetime:
        """Time passing (see :meth:`Client.clock_advance`); returns the new now."""
        return parse_instant(self.client.clock_advance(span)["now"])

    def set_time(self, when: str) -> datetime:
        """A wall-clock step (see :meth:`Client.clock_set`); returns the new now."""
        return parse_instant(self.client.clock_set(when)["now"])

    def next(self) -> datetime:
        """To the next due instant, delivering what is due then; returns the new now."""
        return parse_instant(self.client.clock_next()["now"])

    def sleep(self, span: str | int | float | timedelta) -> datetime:
        """The machine sleeps for ``span`` and resumes (see :meth:`Client.clock_sleep`): late ones are
        shown at once, folded per app beyond the threshold; returns the new now."""
        return parse_instant(self.client.clock_sleep(span)["now"])

    def status(self) -> dict:
        """See :meth:`Client.status`."""
        return self.client.status()

    def zone(self, zone: str) -> None:
        """A device-zone change."""
        self.client.clock_zone(zone)

    def run_until_idle(self, limit: int = 1000) -> int:
        """See :meth:`Client.run_until_idle`."""
        return self.client.run_until_idle(limit)

    @property
    def now(self) -> datetime:
        return parse_instant(self.client.clock_show()["now"])

    @property
    def pending_count(self) -> int:
        return self.client.pending_count()

    def pending(self) -> list[dict]:
        return self.client.pending()

    def shown(self) -> list[Notification]:
        """Every notification shown so far, in the order shown."""
        with open(self.shown_path, encoding="utf-8") as lines:
            return [Notification.from_json(json.loads(line)) for line in lines if line.strip()]

    def history(self, limit: int | None = None) -> list[HistoryRecord]:
        """History, oldest first (all of it, or the newest ``limit``)."""
        return [HistoryRecord.from_json(r) for r in self.client.history(limit)]

    def signals(self) -> list[Signal]:
        """Signals of every app received since the testbed started (it subscribes at start, with
        ``SubscribeAllApps``), oldest first; each is returned once."""
        return list(self.client.signals())


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False
