"""The pytest plugin: a ``schedd_testbed`` fixture giving each test a private schedd.

Installed with the package (entry point ``pytest11``), so no ``conftest.py`` is needed::

    import pytest

    @pytest.mark.schedd(fake_clock="2026-12-24T08:00:00Z", tz="Europe/Berlin")
    def test_dinner_reminder(schedd_testbed):
        schedd_testbed.schedule("run_1:dinner", "Dinner", at="2026-12-24T18:00")
        schedd_testbed.advance("10h")
        assert [n.id for n in schedd_testbed.shown()] == ["run_1:dinner"]

The marker's keywords go to :class:`schedd.Testbed` (``fake_clock``, ``tz``, ``keep``, ``app``). The
schedd binary is ``--schedd-binary``, else ``$SCHEDD_BINARY``, else ``schedd`` on PATH.
"""

from __future__ import annotations

import pytest

from .testbed import Testbed


def pytest_addoption(parser):
    group = parser.getgroup("schedd")
    group.addoption("--schedd-binary", default=None, help="the schedd executable the testbed runs (default: PATH)")


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "schedd(fake_clock=None, tz='UTC', keep=False, app=None): how the schedd_testbed fixture starts its testbed")


@pytest.fixture
def schedd_testbed(request):
    """A :class:`schedd.Testbed` of this test's own: started before it, torn down after it."""
    marker = request.node.get_closest_marker("schedd")
    options = dict(marker.kwargs) if marker else {}
    options.setdefault("binary", request.config.getoption("--schedd-binary"))
    testbed = Testbed(**options)
    try:
        yield testbed
    finally:
        testbed.stop()
