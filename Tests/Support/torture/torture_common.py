"""Shared pieces of the torture and hostile-input drivers: a private dbus-daemon, the schedd daemon
under test (started, SIGKILLed, restarted) and CLI calls.

Run with /usr/bin/python3 (Debian's; only the standard library is used here)."""

import json
import os
import signal
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))


class Failure(Exception):
    """A harness step that could not be done (not a finding about schedd)."""


class Bus:
    """A private dbus-daemon in the foreground, our child; `config` defaults to session-bus.conf."""

    def __init__(self, config=None, address=None):
        args = ['dbus-daemon', '--config-file=' + (config or os.path.join(HERE, 'session-bus.conf')),
                '--nofork', '--nopidfile', '--print-address=1']
        if address:
            args.append('--address=' + address)
        err = tempfile.TemporaryFile()
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL, stderr=err)
        line = self.proc.stdout.readline().decode().strip()
        if not line:
            self.proc.wait()
            err.seek(0)
            raise Failure('dbus-daemon did not print its address: %s' % err.read().decode(errors='replace').strip())
        err.close()
        self.address = line

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait()


class Schedd:
    """The daemon under test: `schedd run` on `bus` with the stdout notifier, its stdout appended to
    `notes` (one JSON line per shown notification), its stderr to `log`."""

    def __init__(self, binary, bus, db, notes, log, tz='America/New_York', env=None, run_prefix=(), run_args=()):
        self.binary, self.bus, self.db, self.notes, self.log, self.tz = binary, bus, db, notes, log, tz
        self.env = env
        self.run_prefix = list(run_prefix)   # e.g. setpriv … to run the daemon as another user
        self.run_args = list(run_args)       # more `schedd run` options
        self.proc = None
        self.starts = 0
        self.start_retries = 0

    def start(self, clock, extra_env=None, timeout=60.0):
        """Starts the daemon with its fake clock at `clock` and waits until it answers on the bus.
        Retries a start that failed because the bus still held the name of a killed predecessor."""
        deadline = time.monotonic() + timeout
        while True:
            self.spawn(clock, extra_env)
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                r = self.cli(['clock', 'show', '--json'], timeout=10)
                if r.returncode == 0:
                    return json.loads(r.stdout)
                time.sleep(0.02)
            if self.proc.poll() is None or time.monotonic() >= deadline:
                self.kill9()
                raise Failure('schedd did not answer within %.0f s of its start; log %s' % (timeout, self.log))
            if time.monotonic() >= deadline or self.start_retries > 20:
                raise Failure('schedd exited at start with %d; log %s' % (self.proc.returncode, self.log))
            self.start_retries += 1
            # A back-off between attempts (bounded by the deadline above), not a wait for a condition:
            # the bus frees the killed predecessor's name on its own schedule, the next start tells.
            time.sleep(0.1)

    def spawn(self, clock, extra_env=None):
        """Starts the daemon without waiting for it (see `start`)."""
        with open(self.notes, 'ab') as out, open(self.log, 'ab') as err:
            env = dict(self.env or os.environ)
            env.update(extra_env or {})
            self.proc = subprocess.Popen(
                self.run_prefix + [self.binary, 'run', '--bus', self.bus.address, '--db', self.db,
                                   '--notifier', 'stdout', '--fake-clock', clock, '--tz', self.tz] + self.run_args,
                stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env)
        self.starts += 1

    @property
    def pid(self):
        return self.proc.pid

    def alive(self):
        return self.proc is not None and self.proc.poll() is None

    def kill9(self):
        """SIGKILL and reap: after this no process holds the database."""
        if self.proc is not None and self.proc.poll() is None:
            os.kill(self.proc.pid, signal.SIGKILL)
        if self.proc is not None:
            self.proc.wait()

    def stop(self):
        """SIGTERM (a clean stop); returns the exit status."""
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
        return self.proc.wait(timeout=60) if self.proc is not None else None

    def cli_args(self, args, prefix=()):
        return list(prefix) + [self.binary] + args + ['--bus', self.bus.address]

    def cli(self, args, input=None, timeout=600, prefix=()):
        """Runs `schedd ARGS --bus ADDRESS` to completion; returns the CompletedProcess (bytes in,
        text out)."""
        if isinstance(input, str):
            input = input.encode()
        r = subprocess.run(self.cli_args(args, prefix), input=input, capture_output=True, timeout=timeout)
        r.stdout = r.stdout.decode(errors='replace')
        r.stderr = r.stderr.decode(errors='replace')
        return r

    def popen(self, args, input_path=None):
        """Starts a CLI call in the background (stdin from `input_path`); returns the Popen."""
        stdin = open(input_path, 'rb') if input_path else subprocess.DEVNULL
        try:
            return subprocess.Popen(self.cli_args(args), stdin=stdin, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE)
        finally:
            if input_path:
                stdin.close()

    def status(self):
        """The daemon's /proc/PID/status fields (VmRSS, VmHWM…) in kB."""
        fields = {}
        with open('/proc/%d/status' % self.pid) as f:
            for line in f:
                key, _, value = line.partition(':')
                parts = value.split()
                if len(parts) == 2 and parts[1] == 'kB':
                    fields[key] = int(parts[0])
        return fields
