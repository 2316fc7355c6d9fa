"""The errors of the schedd client, one class per D-Bus error of org.schedd.Scheduler1.

Every failed call raises a subclass of :class:`ScheddError` whose ``dbus_name`` is the D-Bus error
name and whose message is the daemon's one-line message (the same line ``schedd`` prints), e.g.
``bk.local.title: required`` for :class:`InvalidPush`.
"""

from __future__ import annotations

ERROR_PREFIX = "org.schedd.Scheduler1.Error."


class ScheddError(Exception):
    """A call to schedd failed. ``dbus_name`` is the D-Bus error name (None when no daemon answered)."""

    dbus_name: str | None = None
    #: The member the daemon named (``bk.local.title``; ``push`` for the whole push), None when it named none.
    member: str | None = None
    #: The rule it broke (``required``); the message is ``member + ": " + rule``.
    rule: str | None = None
    #: A JSON syntax error's byte offset in the push and the parser's reason without it, else None.
    position: int | None = None
    syntax: str | None = None

    def __init__(self, message: str, dbus_name: str | None = None):
        super().__init__(message)
        self.message = message
        if dbus_name is not None:
            self.dbus_name = dbus_name

    def with_detail(self, fields) -> "ScheddError":
        """Sets ``member``, ``rule``, ``position`` and ``syntax`` from the strings after the message in the
        error reply (README.md "Errors"); another shape leaves them None. Returns self."""
        if len(fields) == 4 and all(isinstance(f, str) for f in fields):
            self.member, self.rule = fields[0], fields[1]
            self.position = int(fields[2]) if fields[2].isdigit() else None
            self.syntax = fields[3] or None
        return self


class InvalidPush(ScheddError):
    """A push broke a rule of the contract; the message names the member and the rule. Nothing was stored."""

    dbus_name = ERROR_PREFIX + "InvalidPush"


class InvalidArgument(ScheddError):
    """Another argument is malformed or unknown (a zone, a time, an event name, data that is not JSON)."""

    dbus_name = ERROR_PREFIX + "InvalidArgument"


class NotFound(ScheddError):
    """The thing named does not exist."""

    dbus_name = ERROR_PREFIX + "NotFound"


class NotFakeClock(ScheddError):
    """A clock was moved on a daemon running the real clock (start it with ``--fake-clock``)."""

    dbus_name = ERROR_PREFIX + "NotFakeClock"


class StorageError(ScheddError):
    """The daemon's database failed; nothing was changed."""

    dbus_name = ERROR_PREFIX + "Storage"


class UsageError(ScheddError):
    """The call itself is malformed (or names a method this daemon does not have)."""

    dbus_name = ERROR_PREFIX + "Usage"


class AccessDenied(ScheddError):
    """The bus policy or the daemon's own caller check refused the call."""

    dbus_name = "org.freedesktop.DBus.Error.AccessDenied"


class DaemonUnreachable(ScheddError):
    """No schedd answers on that bus (not running, not activatable, or it did not reply in time)."""


class RunawayTimers(ScheddError):
    """``run_until_idle`` delivered ``limit`` times and schedules are still pending (a repeating
    schedule never goes idle): like sinon's ``runAll`` aborting after ``loopLimit`` timers."""


class TestbedError(ScheddError):
    """``schedd testbed`` could not start (its message says why) or stop."""

    __test__ = False  # not a pytest test class


_BY_NAME = {cls.dbus_name: cls for cls in (InvalidPush, InvalidArgument, NotFound, NotFakeClock, StorageError,
                                           UsageError, AccessDenied)}
_UNREACHABLE = {
    "org.freedesktop.DBus.Error.ServiceUnknown",
    "org.freedesktop.DBus.Error.NameHasNoOwner",
    "org.freedesktop.DBus.Error.NoReply",
    "org.freedesktop.DBus.Error.Timeout",
    "org.freedesktop.DBus.Error.Disconnected",
}


def error_for(dbus_name: str, message: str) -> ScheddError:
    """The exception for a D-Bus error reply."""
    cls = _BY_NAME.get(dbus_name)
    if cls is not None:
        return cls(message)
    if dbus_name in _UNREACHABLE:
        return DaemonUnreachable(f"no schedd daemon answers: {message}", dbus_name)
    if dbus_name == "org.freedesktop.DBus.Error.UnknownMethod":
        return UsageError(message, dbus_name)
    return ScheddError(f"{dbus_name}: {message}", dbus_name)
