#!/usr/bin/python3
"""Hostile input for schedd over D-Bus and the CLI (issue 6, item 4).

Starts the real daemon (fake clock, stdout notifier, fresh database) on a private bus and throws
at it: wrong signatures and arity, 1 MiB strings (title, id, whole JSON), invalid UTF-8, a
100,000-entry cancelOn, deep nesting, zone names that are paths, then a flood of 10,000 bad pushes
(NDJSON through the CLI, plus one D-Bus call each for 1,000 and one CLI call each for 100 of them).

Every case must give a clear error (a D-Bus error / CLI exit 1 or 2 with a message on stderr; for
pushes the message names the member or rule), store nothing (the row count of every table in the
database is unchanged, the pending list stays empty) and leave the daemon alive and answering.
The daemon's VmRSS/VmHWM (/proc/PID/status) are read before and after the flood; the bound is
stated in hostile_flood.py (FLOOD_*_BOUND_KB). Last, notification text that looks like markup must reach the
stdout notifier literally (exact strings in its JSON line).

Case names to run can be given with --only (substring match). Prints one line per case
(`PASS name` / `FAIL name: why`) and the figures; exits 0 when all pass, 1 otherwise.
Needs python3-dbus: run with /usr/bin/python3.
"""

import argparse
import json
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hostile_flood import FloodAndMarkup  # noqa: E402
from hostile_support import MIB, push_text  # noqa: E402
from torture_common import Bus, Failure, Schedd  # noqa: E402

import dbus  # noqa: E402  (python3-dbus)

# The daemon's peak resident set over the whole run (1 MiB strings, a 100,000-entry PushBatch, the
# flood…) stays under this.
RUN_PEAK_BOUND_KB = 256 * 1024
NAME, PATH, IFACE = 'org.schedd.Scheduler1', '/org/schedd/Scheduler1', 'org.schedd.Scheduler1'


class Hostile(FloodAndMarkup):
    def __init__(self, args):
        self.args = args
        self.work = tempfile.mkdtemp(prefix='schedd-hostile-')
        self.db = os.path.join(self.work, 'schedd.db')
        self.notes = os.path.join(self.work, 'notifications.jsonl')
        self.log = os.path.join(self.work, 'daemon.log')
        self.results = []
        self.figures = {}

    # -- observation -----------------------------------------------------------------------------

    def rows(self):
        """Rows per table of the daemon's database (read beside the running daemon; WAL mode)."""
        con = sqlite3.connect('file:%s?mode=ro' % self.db, uri=True, timeout=30)
        try:
            tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            return {t: con.execute('SELECT count(*) FROM "%s"' % t).fetchone()[0] for t in tables if t != 'meta'}
        finally:
            con.close()

    def answering(self):
        if not self.daemon.alive():
            return 'the daemon died (exit %s); log tail: %s' % (self.daemon.proc.returncode, self.log_tail())
        r = self.daemon.cli(['clock', 'show', '--json'], timeout=60)
        if r.returncode != 0:
            return 'the daemon does not answer clock show: %s' % r.stderr.strip()
        return None

    def log_tail(self):
        with open(self.log, 'rb') as f:
            return f.read()[-600:].decode(errors='replace')

    def dbus_call(self, method, signature, args, timeout=120):
        """A raw D-Bus call; returns ('ok', reply) or ('error', 'Name: message')."""
        try:
            reply = self.conn.call_blocking(NAME, PATH, IFACE, method, signature, args, timeout=timeout)
            return 'ok', reply
        except dbus.exceptions.DBusException as e:
            return 'error', '%s: %s' % (e.get_dbus_name(), e.get_dbus_message())

    # -- cases -----------------------------------------------------------------------------------

    def case(self, name, body):
        """Runs one case: `body()` returns None when the behaviour was right, else why not. Then
        checks that nothing was stored and that the daemon still answers."""
        if self.args.only and not any(o in name for o in self.args.only):
            return
        before = self.rows()
        try:
            problem = body()
        except Exception as e:  # a harness-side surprise is a failed case, not a crash of the driver
            problem = 'raised %s: %s' % (type(e).__name__, str(e)[:300])
        problem = problem or self.answering()
        if self.daemon.alive():
            after = self.rows()
            if after != before:
                changed = {t: '%d→%d' % (before.get(t, 0), n) for t, n in after.items() if before.get(t) != n}
                problem = (problem + '; ' if problem else '') + 'stored something: rows %s' % changed
        self.results.append((name, problem))
        print(('PASS %s' % name) if problem is None else ('FAIL %s: %s' % (name, problem)), flush=True)

    def expect_dbus_error(self, method, signature, args, names, words=()):
        kind, detail = self.dbus_call(method, signature, args)
        if kind == 'ok':
            return 'accepted, answered %r' % (str(detail)[:200],)
        if not any(detail.startswith(n) for n in names):
            return 'wrong error %s (expected %s)' % (detail[:300], ' or '.join(names))
        missing = [w for w in words if w not in detail]
        if missing:
            return 'the error does not name %s: %s' % (missing, detail[:300])
        return None

    def expect_cli_error(self, args, input=None, codes=(1,), words=(), lines=None):
        r = self.daemon.cli(args, input=input)
        if r.returncode not in codes:
            return 'exit %d (expected %s); stdout %r stderr %r' % (r.returncode, codes, r.stdout[:200], r.stderr[:300])
        if not r.stderr.strip():
            return 'no message on stderr'
        missing = [w for w in words if w not in r.stderr]
        if missing:
            return 'the message does not name %s: %r' % (missing, r.stderr[:300])
        if lines is not None:
            errors = [l for l in r.stderr.splitlines() if 'rejected' in l]
            if len(errors) != lines:
                return '%d rejection lines on stderr, expected %d' % (len(errors), lines)
        return None

    def file(self, name, data):
        path = os.path.join(self.work, name)
        with open(path, 'wb') as f:
            f.write(data if isinstance(data, bytes) else data.encode())
        return path

    def run_cases(self):
        invalid_args = ('org.freedesktop.DBus.Error.InvalidArgs',)
        push_err = ('org.schedd.Scheduler1.Error.InvalidPush',)
        arg_err = ('org.schedd.Scheduler1.Error.InvalidArgument', 'org.schedd.Scheduler1.Error.InvalidPush')
        c = self.case

        # Wrong signatures and arity, through busctl (sd-bus) and python-dbus (libdbus).
        for member, sig, args in [('Push', '', []), ('Push', 'i', [5]), ('Push', 'ss', ['{}', '{}']),
                                  ('Push', 'as', [['{}']]), ('PushBatch', 's', ['{}']), ('Track', 's', ['ev']),
                                  ('Track', 'sss', ['a', 'b', 'c']), ('Cancel', 'u', [1]), ('List', 'ss', ['a', 'b']),
                                  ('History', 's', ['10']), ('ClockAdvance', 'x', [-1]), ('ClockAdvance', 's', ['1d']),
                                  ('ClockSet', 'v', [dbus.String('x', variant_level=1)]), ('ClockShow', 's', ['x'])]:
            c('dbus wrong signature %s(%s)' % (member, sig),
              lambda m=member, s=sig, a=args: self.expect_dbus_error(m, s, a, invalid_args))
        c('dbus unknown method', lambda: self.expect_dbus_error(
            'Explode', '', [], ('org.freedesktop.DBus.Error.UnknownMethod',)))
        c('busctl wrong types Push(i)', lambda: self.busctl_error(['Push', 'i', '5']))
        c('busctl missing argument Track(s)', lambda: self.busctl_error(['Track', 's', 'ev']))
        c('busctl invalid UTF-8 string', lambda: self.busctl_error(['Push', 's', b'{"bk":{"local":{"title":"\xff"}}}']))

        # 1 MiB strings over D-Bus.
        big = 'x' * MIB
        c('dbus Push 1 MiB title', lambda: self.expect_dbus_error('Push', 's', [push_text(title=big)], push_err))
        c('dbus Push 1 MiB id', lambda: self.expect_dbus_error('Push', 's', [push_text(id=big)], push_err))
        c('dbus Push 1 MiB JSON string', lambda: self.expect_dbus_error('Push', 's', [json.dumps(big)], push_err))
        c('dbus Push 1 MiB of spaces', lambda: self.expect_dbus_error('Push', 's', [' ' * MIB], push_err))
        c('dbus PushBatch 1 MiB entries', lambda: self.batch_all_rejected([push_text(title=big), push_text(id=big), big]))
        c('dbus Cancel 1 MiB id', lambda: self.expect_dbus_error('Cancel', 's', [big], arg_err))
        c('dbus CancelRun 1 MiB run', lambda: self.expect_dbus_error('CancelRun', 's', [big], arg_err))
        c('dbus Cancel empty id', lambda: self.expect_dbus_error('Cancel', 's', [''], arg_err))
        c('dbus Cancel id with control characters', lambda: self.expect_dbus_error('Cancel', 's', ['a\nb\x01'], arg_err))
        c('dbus Track 1 MiB event', lambda: self.expect_dbus_error('Track', 'ss', [big, ''], arg_err))
        # The contract bounds no track data and does not store it: either answer is fine, if nothing is stored.
        c('dbus Track 1 MiB data', lambda: self.expect_ok('Track', 'ss', ['ev', json.dumps({'d': big})])
          and self.expect_dbus_error('Track', 'ss', ['ev', json.dumps({'d': big})], arg_err))
        c('dbus ClockSet 1 MiB', lambda: self.expect_dbus_error('ClockSet', 's', [big], arg_err))
        c('dbus ClockZone 1 MiB', lambda: self.expect_dbus_error('ClockZone', 's', [big], arg_err))
        c('dbus ClockAdvance UInt64.max', lambda: self.expect_dbus_error('ClockAdvance', 't', [2**64 - 1], arg_err))
        c('dbus History UInt32.max on an empty store', lambda: self.expect_ok('History', 'u', [2**32 - 1]))
        c('dbus List UInt32.max offset', lambda: self.expect_ok('List', 'uu', [2**32 - 1, 2**32 - 1]))

        # Zone names that are paths (read as files below the zoneinfo directory?).
        for zone in ['../../../../../dev/zero', '/dev/zero', '../../../../../proc/self/mem', '../../../../../etc/passwd',
                     '../../../../../dev/stdin']:
            c('dbus ClockZone %s' % zone, lambda z=zone: self.expect_dbus_error('ClockZone', 's', [z], arg_err))
            c('dbus Push timeZone %s' % zone, lambda z=zone: self.expect_dbus_error(
                'Push', 's', [push_text(timeZone=z)], push_err, ['timeZone']))

        # Over-limit members name the member (CONTRACT §1).
        for member, value in [('title', 'x' * 1025), ('body', 'x' * 8193), ('id', 'r' * 201),
                              ('data', {'k': 'x' * 16400}), ('cancelOn', ['e%d' % i for i in range(33)]),
                              ('cancelOn', ['x' * 129])]:
            c('dbus Push over-limit %s' % member, lambda m=member, v=value: self.expect_dbus_error(
                'Push', 's', [push_text(**{m: v})], push_err, [m]))

        # U+0000 cannot travel in a D-Bus string (the desktop notifier's Notify call would fail).
        c('dbus Push title with U+0000 names title', lambda: self.expect_dbus_error(
            'Push', 's', [push_text(title='a\u0000b')], push_err, ['title']))
        c('dbus Push id with U+0000 names id', lambda: self.expect_dbus_error(
            'Push', 's', [push_text(id='run_h:\u0000')], push_err, ['id']))
        # One PushBatch call at the entry cap (10,000) of bad pushes: one error answer each, nothing stored.
        # Over a cap (100,000 entries; 8 MiB of entries) the call is refused whole, naming the cap.
        c('dbus PushBatch 10000 bad pushes in one call', lambda: self.batch_all_rejected(
            ['{"bk":{"local":{"id":"run_b:%d"}}}' % i for i in range(10_000)]))
        c('dbus PushBatch 100000 bad pushes in one call', lambda: self.expect_dbus_error(
            'PushBatch', 'as', [['{"bk":{"local":{"id":"run_b:%d"}}}' % i for i in range(100_000)]],
            ('org.schedd.Scheduler1.Error.InvalidArgument',), ['10000 entries']))
        c('dbus PushBatch over 8 MiB in one call', lambda: self.expect_dbus_error(
            'PushBatch', 'as', [[push_text(title='x' * 60_000)] * 150],
            ('org.schedd.Scheduler1.Error.InvalidArgument',), ['8388608 bytes']))

        # 100,000-entry cancelOn (≈ 1 MiB) and deep nesting.
        events = ['e%d' % i for i in range(100_000)]
        c('dbus Push 100000-entry cancelOn', lambda: self.expect_dbus_error('Push', 's', [push_text(cancelOn=events)], push_err))
        deep = '[' * 30_000 + ']' * 30_000
        deep_push = '{"bk":{"local":{"id":"run_h:x","at":"2026-03-08T09:00","title":"t","data":{"d":%s}}}}' % deep
        deep_root = '{"sender":%s,"bk":{"local":{"id":"run_h:x","at":"2026-03-08T09:00","title":"t"}}}' % deep
        c('dbus Push 30000-deep data', lambda: self.expect_dbus_error('Push', 's', [deep_push], push_err))
        c('dbus Push 30000-deep sender member', lambda: self.expect_dbus_error('Push', 's', [deep_root], push_err))
        c('dbus Push 1M-deep (2 MB)', lambda: self.expect_dbus_error('Push', 's', ['[' * MIB + ']' * MIB], push_err))
        c('dbus Track 30000-deep data', lambda: self.expect_dbus_error('Track', 'ss', ['ev', deep], arg_err))

        # The CLI: 1 MiB files, NDJSON of 1 MiB lines, invalid UTF-8, deep nesting, 100,000 cancelOn.
        c('cli push 1 MiB title', lambda: self.expect_cli_error(
            ['push', self.file('big-title.json', push_text(title=big))]))
        c('cli push 1 MiB id', lambda: self.expect_cli_error(['push', self.file('big-id.json', push_text(id=big))]))
        c('cli push 1 MiB JSON string', lambda: self.expect_cli_error(['push', self.file('big-str.json', json.dumps(big))]))
        c('cli push NDJSON of three 1 MiB lines', lambda: self.expect_cli_error(
            ['push', self.file('big.ndjson', '\n'.join([push_text(title=big), push_text(id=big), big]) + '\n')], lines=3))
        c('cli push 100000-entry cancelOn', lambda: self.expect_cli_error(
            ['push', self.file('cancelon.json', push_text(cancelOn=events))]))
        c('cli push 33-entry cancelOn names cancelOn', lambda: self.expect_cli_error(
            ['push', '-'], input=push_text(cancelOn=events[:33]), words=['cancelOn']))
        c('cli push 30000-deep data', lambda: self.expect_cli_error(['push', self.file('deep.json', deep_push)]))
        c('cli push 1M-deep (2 MB)', lambda: self.expect_cli_error(['push', self.file('deeper.json', '[' * MIB + ']' * MIB)]))
        c('cli track --data 30000-deep', lambda: self.expect_cli_error(['track', 'ev', '--data', deep]))
        bad_utf8 = push_text(title='TITLE').encode().replace(b'TITLE', b'caf\xc3\x28 \xff\xfe \xed\xa0\x80')
        c('cli push invalid UTF-8 title (file)', lambda: self.expect_cli_error(
            ['push', self.file('utf8.json', bad_utf8)], words=['UTF-8']))
        c('cli push invalid UTF-8 title (stdin)', lambda: self.expect_cli_error(['push', '-'], input=bad_utf8, words=['UTF-8']))
        bad_utf8_id = push_text(id='ID').encode().replace(b'ID', b'run_h:\xff')
        c('cli push invalid UTF-8 NDJSON lines', lambda: self.expect_cli_error(
            ['push', self.file('utf8.ndjson', bad_utf8 + b'\n' + bad_utf8_id + b'\n')], words=['UTF-8'], lines=2))
        c('cli push invalid UTF-8 id', lambda: self.expect_cli_error(['push', '-'], input=bad_utf8_id, words=['UTF-8']))
        c('cli cancel invalid UTF-8 id', lambda: self.expect_cli_error(['cancel', b'run_h:\xff\xfe'.decode('utf-8', 'surrogateescape')]))
        c('cli cancel 100 KiB id', lambda: self.expect_cli_error(['cancel', 'r' * 100_000]))
        c('cli push a directory', lambda: self.expect_cli_error(['push', self.work], codes=(1, 3)))
        c('cli push 1 GiB endless line with 768 MiB of address space', self.endless_input)

    def endless_input(self):
        """`schedd push -` fed 1 GiB of zero bytes (one endless line) under RLIMIT_AS = 768 MiB: a
        clear rejection (a size limit), not a crash from reading it all into memory. The limit and
        a 120 s timeout keep a failure from hurting the machine."""
        import resource
        import threading

        def limit():
            resource.setrlimit(resource.RLIMIT_AS, (768 << 20, 768 << 20))
        p = subprocess.Popen(self.daemon.cli_args(['push', '-']), stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                             stderr=subprocess.PIPE, preexec_fn=limit)

        def feed():
            chunk = bytes(1 << 20)
            try:
                for _ in range(1024):
                    p.stdin.write(chunk)
                p.stdin.close()
            except (BrokenPipeError, ValueError):
                pass
        feeder = threading.Thread(target=feed, daemon=True)
        feeder.start()
        try:
            err = p.stderr.read()
            p.wait(timeout=120)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            return 'still reading after 120 s'
        if p.returncode not in (1, 2, 3) or not err.strip():
            return 'exit %d (%s), stderr %r' % (p.returncode, 'killed by signal %d' % -p.returncode if p.returncode < 0
                                              else 'no clear error', err[:300].decode(errors='replace'))
        return None

    def busctl_error(self, args):
        args = [a if isinstance(a, bytes) else a.encode() for a in args]
        r = subprocess.run([b'busctl', b'--address=' + self.bus.address.encode(), b'call', NAME.encode(), PATH.encode(),
                            IFACE.encode()] + args, capture_output=True, timeout=60)
        if r.returncode == 0:
            return 'busctl call succeeded: %r' % r.stdout[:200]
        if not r.stderr.strip():
            return 'no error message'
        return None

    def expect_ok(self, method, signature, args):
        kind, detail = self.dbus_call(method, signature, args)
        return None if kind == 'ok' else 'failed: %s' % detail

    def batch_all_rejected(self, texts):
        kind, answers = self.dbus_call('PushBatch', 'as', [texts])
        if kind != 'ok':
            return 'PushBatch failed as a whole: %s' % answers
        if len(answers) != len(texts):
            return '%d answers for %d pushes' % (len(answers), len(texts))
        bad = [a for a in answers if 'error' not in json.loads(a)]
        return ('accepted: %s' % bad[:2]) if bad else None

    # -- the run ---------------------------------------------------------------------------------

    def execute(self):
        self.bus = Bus()
        self.daemon = Schedd(self.args.schedd, self.bus, self.db, self.notes, self.log)
        try:
            self.daemon.start('2026-03-07T12:00:00Z')
            self.conn = dbus.bus.BusConnection(self.bus.address)
            started = self.daemon.status()
            self.figures['VmRSS at start kB'] = started['VmRSS']
            self.flood()        # first, from a fresh daemon: its memory figures are the flood's own
            self.run_cases()
            self.markup()
            final = self.daemon.status()
            self.figures['VmRSS at end kB'] = final['VmRSS']
            self.figures['VmHWM at end kB (bound %d)' % RUN_PEAK_BOUND_KB] = final['VmHWM']
            name = 'peak memory over all cases within bound'
            problem = None if final['VmHWM'] <= RUN_PEAK_BOUND_KB else 'VmHWM %d kB > %d kB' % (
                final['VmHWM'], RUN_PEAK_BOUND_KB)
            self.results.append((name, problem))
            print('PASS %s' % name if problem is None else 'FAIL %s: %s' % (name, problem), flush=True)
            if self.daemon.stop() != 0:
                self.results.append(('clean stop', 'the daemon did not exit 0 on SIGTERM'))
        finally:
            self.daemon.kill9()
            self.bus.stop()


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--schedd', required=True)
    parser.add_argument('--only', action='append', help='run only cases whose name holds this text')
    args = parser.parse_args()
    run = Hostile(args)
    try:
        run.execute()
    except Failure as e:
        print('HARNESS FAILURE: %s' % e, flush=True)
        return 2
    failed = [r for r in run.results if r[1] is not None]
    print('hostile input: %d cases, %d passed, %d failed; work dir %s' % (
        len(run.results), len(run.results) - len(failed), len(failed), run.work))
    for key, value in run.figures.items():
        print('  %-50s %s' % (key, value))
    for name, why in failed:
        print('VIOLATION: %s: %s' % (name, why))
    if not failed:
        shutil.rmtree(run.work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
