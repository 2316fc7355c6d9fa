"""Fixtures of the package's own suite (the schedd_testbed fixture itself comes from the plugin)."""

import os
import subprocess
import tempfile
import time

import pytest

from schedd import Client, DaemonUnreachable
from schedd.testbed import find_schedd

pytest_plugins = ["pytester"]

BUS_CONFIG = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path={socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default"><allow send_destination="*"/><allow eavesdrop="true"/><allow own="*"/></policy>
</busconfig>
"""


@pytest.fixture
def real_clock_daemon(request):
    """A bus and ``schedd run`` on the REAL clock (no testbed: it always fakes the clock); yields a Client."""
    directory = tempfile.mkdtemp(prefix="schedd-py-")
    config = os.path.join(directory, "bus.conf")
    with open(config, "w") as f:
        f.write(BUS_CONFIG.format(socket=os.path.join(directory, "bus")))
    bus = subprocess.Popen(["dbus-daemon", "--config-file", config, "--nofork", "--print-address=1"],
                           stdout=subprocess.PIPE, text=True)
    address = bus.stdout.readline().strip()
    daemon = subprocess.Popen([find_schedd(request.config.getoption("--schedd-binary")), "run", "--bus", address,
                               "--db", os.path.join(directory, "db"), "--notifier", "none", "--tz", "UTC"],
                              stderr=subprocess.DEVNULL)
    client = None
    deadline = time.monotonic() + 20
    while client is None:
        candidate = Client(address)
        try:
            candidate.clock_show()
            client = candidate
        except DaemonUnreachable:
            candidate.close()
            if time.monotonic() > deadline or daemon.poll() is not None:
                raise
            time.sleep(0.02)
    try:
        yield client
    finally:
        client.close()
        daemon.terminate()
        daemon.wait(10)
        bus.terminate()
        bus.wait(10)
        subprocess.run(["rm", "-rf", directory], check=False)
