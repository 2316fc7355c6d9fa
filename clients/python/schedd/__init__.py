"""schedd for Python: a client for its D-Bus API and a pytest fixture with a private, fake-clock daemon.

``Client`` talks to a running daemon; ``Testbed`` starts one of its own (``schedd testbed``); the
pytest plugin (``schedd.pytest_plugin``, loaded automatically) gives each test a ``schedd_testbed``.
"""

from .client import MAX_BATCH_BYTES, MAX_BATCH_ENTRIES, Cancelled, Client, Signal, batch_pages, span_microseconds
from .errors import (AccessDenied, DaemonUnreachable, InvalidArgument, InvalidPush, NotFakeClock, NotFound,
                     RunawayTimers, ScheddError, StorageError, TestbedError, UsageError)
from .testbed import HistoryRecord, Notification, Testbed, parse_instant

__all__ = [
    "AccessDenied", "Cancelled", "Client", "MAX_BATCH_BYTES", "MAX_BATCH_ENTRIES", "batch_pages", "DaemonUnreachable", "HistoryRecord", "InvalidArgument", "InvalidPush", "NotFakeClock",
    "NotFound", "Notification", "RunawayTimers", "ScheddError", "Signal", "StorageError", "Testbed", "TestbedError",
    "UsageError", "parse_instant", "span_microseconds",
]
