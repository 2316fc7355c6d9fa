#!/usr/bin/python3
"""Crash-safety torture for schedd (issue 6, item 2).

Runs the real daemon (fake clock, stdout notifier appended to a file, fresh database) on a private
bus, sends a seeded random mix of operations through the CLI — one-shot and calendar pushes,
duplicates, cancels (push, CLI, run), tracks, `clock advance` spans that fire notifications,
`clock set` steps forward and back, and bulk NDJSON pushes — and SIGKILLs the daemon at `--kills`
seeded moments (between operations; during pushes, advances, bulk loads and the catch-up of a
restart), restarting it each time on the same database.

The fake clock is not persisted by the daemon (`--fake-clock` sets where it starts), so each restart
passes the last *acknowledged* clock value (the `now` of the last answered `clock advance`/`set`).
After an advance that was killed unanswered, the daemon may already have committed firings later
than that: the restarted clock then stands before them, which also exercises "stepping back never
fires twice". After every other killed advance the restart starts at that advance's target instead,
as a real clock would have moved on (the due notifications are then late or missed).

Every operation that was acknowledged (exit status and answer) is recorded. At the end a last run
advances the clock 60 days (everything one-shot fires), reads `list` and `history`, stops the daemon
with SIGTERM and checks:
  - no acknowledged push lost: every acknowledged `scheduled`/`replaced` (id, next) is pending with
    that next, or history holds a record of that id with due == next (fired, missed, cancelled,
    replaced) — for a calendar, any record of that id with due ≥ next (occurrences missed while
    down collapse into the latest);
  - no acknowledged cancel lost: every id an acknowledged cancel/track answered has a `cancelled`
    record, and nothing of it fires after that record unless the id was pushed again;
  - at most once (docs/semantics.md): across the notifier output of all runs each (id, due) appears
    at most once, every shown (id, due) has a `fired` or `unconfirmed` record (committed before it
    was shown), and history holds no two such records for one (id, due);
  - honest history (CONTRACT §5): every `fired` record was really printed by the notifier (a firing
    whose hand-over a kill left unconfirmed is `unconfirmed`), and no kill left more `unconfirmed`
    records than one commit batch (Engine.firingBatchSize, 1000: `clock advance` fires in batches);
  - PRAGMA integrity_check = ok.
Also prints how many displays were lost (`fired` but never shown: killed between a batch's commit
and its display) and the largest such run — README promises at most the one in flight.
Prints the counts; exits 0 when every check holds, 1 otherwise (2 for a harness failure).
"""

import argparse
import collections
import datetime as dt
import json
import os
import random
import shutil
import sqlite3
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from crash_plan import START, Generator, parse_instant, rfc3339  # noqa: E402
from torture_common import Bus, Failure, Schedd  # noqa: E402


class Run:
    def __init__(self, args):
        self.args = args
        self.rng = random.Random(args.seed)
        self.work = args.workdir or tempfile.mkdtemp(prefix='schedd-torture-')
        os.makedirs(self.work, exist_ok=True)
        self.db = os.path.join(self.work, 'state', 'schedd.db')
        self.notes = os.path.join(self.work, 'notifications.jsonl')
        self.log = os.path.join(self.work, 'daemon.log')
        self.clock = rfc3339(START)   # the last acknowledged clock
        self.acked_schedules = []     # (id, next, status, op index)
        self.acked_cancels = []       # (id, op index)
        self.pushed_at = collections.defaultdict(list)   # id → op indices of every attempted bk.local
        self.counts = collections.Counter()
        self.violations = []
        self.durations = collections.defaultdict(list)   # seconds per answered call, by kind

    def violation(self, text):
        self.violations.append(text)
        print('VIOLATION: ' + text, flush=True)

    # -- answers ---------------------------------------------------------------------------------

    @staticmethod
    def calendar_ids(op):
        """The ids an op schedules with a `calendar` (their first `next` may be collapsed away)."""
        if op[0] != 'push':
            return set()
        local = json.loads(op[1])['bk'].get('local') or {}
        return {local['id']} if 'calendar' in local else set()

    def record_outcomes(self, stdout, index, calendars=frozenset()):
        for line in stdout.splitlines():
            line = line.strip()
            if not line:
                continue
            value = json.loads(line)
            if 'error' in value:
                self.counts['acked rejections'] += 1
                continue
            status = value.get('status')
            self.counts['acked push answers'] += 1
            self.counts['status ' + str(status)] += 1
            if status in ('scheduled', 'replaced') and value.get('next'):
                self.acked_schedules.append((value['id'], value['next'], status, index, value['id'] in calendars))
            for cancelled in value.get('cancelled') or []:
                self.acked_cancels.append((cancelled, index))

    def record(self, op, rc, stdout, stderr, index):
        """Records the answer of a finished CLI call; returns True when it was acknowledged."""
        kind = op[0]
        if kind in ('push', 'bulk'):
            if rc not in (0, 1):
                if kind == 'bulk':      # the batches answered before the kill are acknowledged
                    self.record_outcomes(stdout, index)
                return False
            if rc == 1 and kind == 'push':
                self.violation('op %d: a valid push was rejected: %s' % (index, stderr.strip()))
            self.record_outcomes(stdout, index, self.calendar_ids(op))
            return True
        if rc != 0:
            return False
        value = json.loads(stdout)
        if kind in ('advance', 'clockset'):
            self.clock = value['now']
        else:
            for cancelled in value.get('cancelled', []):
                self.acked_cancels.append((cancelled, index))
        return True

    def cli_args(self, op, bulk_path):
        kind = op[0]
        if kind == 'push':
            return ['push', '-', '--json'], op[1]
        if kind == 'bulk':
            with open(bulk_path, 'w') as f:
                f.write('\n'.join(op[1]) + '\n')
            return ['push', bulk_path, '--json'], None
        if kind == 'cancel':
            return op[1] + ['--json'], None
        if kind == 'track':
            return ['track', op[1], '--json'], None
        if kind == 'clockset':
            return ['clock', 'set', op[1], '--json'], None
        return ['clock', 'advance', op[1], '--json'], None

    # -- the run ---------------------------------------------------------------------------------

    def plan(self, gen):
        ops = [gen.next_op() for _ in range(self.args.ops)]
        by_kind = collections.defaultdict(list)
        for i, op in enumerate(ops[10:], start=10):
            by_kind[op[0]].append(i)
        kills = {}
        k = self.args.kills
        quota = [('advance', k * 7 // 20), ('bulk', k * 5 // 20), ('push', k * 4 // 20)]
        for kind, n in quota:
            for i in self.rng.sample(by_kind[kind], min(n, len(by_kind[kind]))):
                kills[i] = 'during'
        restart_kills = k * 3 // 20
        rest = [i for i in range(10, len(ops)) if i not in kills]
        for i in self.rng.sample(rest, k - restart_kills - len(kills)):
            kills[i] = 'during' if ops[i][0] in ('cancel', 'track') else 'after'
        # Some kills hit the restart after a kill (the catch-up delivery at start); some restarts after
        # a killed advance start at the advance's target, as a real clock would have moved on.
        self.kill_restart = set(self.rng.sample(sorted(kills), restart_kills))
        advances = sorted(i for i in kills if ops[i][0] == 'advance')
        self.restart_at_target = set(advances[::2])
        # When to kill during an operation: after this fraction of the mean duration of that kind
        # measured so far, or, during an advance, once the notifier output grew by this many bytes
        # (mid-delivery, near the commit/show boundary).
        delays = {i: (self.rng.random(), self.rng.randrange(1, 8000)) for i in kills}
        return ops, kills, delays

    def execute(self):
        gen = Generator(random.Random(self.args.seed * 7919 + 1))
        ops, kills, delays = self.plan(gen)
        for index, op in enumerate(ops):
            for text in ([op[1]] if op[0] == 'push' else op[1] if op[0] == 'bulk' else []):
                try:
                    local = json.loads(text)['bk'].get('local')
                except (ValueError, KeyError):
                    continue
                if local and 'id' in local:
                    self.pushed_at[local['id']].append(index)
        for op in ops:
            self.counts['ops ' + op[0]] += 1
            if op[0] == 'bulk':
                self.counts['bulk lines'] += len(op[1])
        self.bus = Bus()
        # --fold-threshold 0: every firing is printed on its own, so each `fired` record pairs with its line;
        # a catch-up after a kill would otherwise fold late ones into one summary (CONTRACT §11, whose own
        # checks are SleepFoldTests).
        self.daemon = Schedd(self.args.schedd, self.bus, self.db, self.notes, self.log,
                             run_args=['--fold-threshold', '0'])
        started = time.monotonic()
        try:
            self.daemon.start(self.clock)
            bulk_path = os.path.join(self.work, 'bulk.ndjson')
            for index, op in enumerate(ops):
                args, stdin = self.cli_args(op, bulk_path)
                mode = kills.get(index)
                if mode == 'during':
                    stdin_path = None
                    if stdin is not None:
                        stdin_path = os.path.join(self.work, 'push.json')
                        with open(stdin_path, 'w') as f:
                            f.write(stdin)
                    fraction, grown = delays[index]
                    before = os.path.getsize(self.notes)
                    p = self.daemon.popen(args, stdin_path)
                    if op[0] == 'advance':
                        while p.poll() is None and os.path.getsize(self.notes) < before + grown:
                            time.sleep(0.0005)
                    else:
                        # A fixed delay on purpose: the kill lands at a random point of the call.
                        time.sleep(fraction * self.mean_duration(op[0]))
                    self.daemon.kill9()
                    out, err = p.communicate(timeout=300)
                    acked = self.record(op, p.returncode, out.decode(errors='replace'), err.decode(errors='replace'), index)
                    self.counts['kills during %s' % op[0]] += 1
                    self.counts['kills that interrupted an operation' if not acked else
                                'kills after the operation was answered'] += 1
                    if op[0] == 'advance' and not acked and index in self.restart_at_target:
                        self.clock = rfc3339(parse_instant(self.clock) + dt.timedelta(seconds=op[2]))
                        self.counts['restarts at the target of a killed advance'] += 1
                    self.restart(index)
                    continue
                t0 = time.monotonic()
                r = self.daemon.cli(args, input=stdin)
                self.durations[op[0]].append(time.monotonic() - t0)
                if not self.record(op, r.returncode, r.stdout, r.stderr, index):
                    alive = self.daemon.alive()
                    self.violation('op %d %s failed without a kill (rc %d, daemon %s): %s' % (
                        index, op[0], r.returncode, 'alive' if alive else 'DEAD', r.stderr.strip()[-300:]))
                    if not alive:
                        self.counts['kills'] -= 1   # not ours: restart() counts kills
                        self.restart(index)
                if mode == 'after':
                    self.daemon.kill9()
                    self.counts['kills between operations'] += 1
                    self.restart(index)
            self.finish()
        finally:
            self.counts['duration s'] = round(time.monotonic() - started, 1)
            self.daemon.kill9()
            self.bus.stop()

    def mean_duration(self, kind):
        samples = self.durations[kind]
        return sum(samples) / len(samples) if samples else 0.05

    def restart(self, index):
        self.counts['kills'] += 1
        if index in self.kill_restart:
            # Kill the restarted daemon again before it answers: during its start-up catch-up.
            self.daemon.spawn(self.clock)
            time.sleep(self.rng.uniform(0.0, 0.3))  # on purpose: a random point of its start-up
            self.daemon.kill9()
            self.counts['kills'] += 1
            self.counts['kills during a restart'] += 1
        self.clock = self.daemon.start(self.clock)['now']

    def finish(self):
        r = self.daemon.cli(['clock', 'advance', '60d', '--json'])
        if r.returncode != 0:
            raise Failure('final clock advance failed: ' + r.stderr)
        r = self.daemon.cli(['list', '--json'])
        if r.returncode != 0:
            raise Failure('list failed: ' + r.stderr)
        self.pending = json.loads(r.stdout)
        r = self.daemon.cli(['history', '--limit', '100000000', '--json'])
        if r.returncode != 0:
            raise Failure('history failed: ' + r.stderr)
        self.history = json.loads(r.stdout)
        status = self.daemon.stop()
        if status != 0:
            self.violation('the daemon exited %s on SIGTERM' % status)
        self.check()

    # -- checks ----------------------------------------------------------------------------------

    def check(self):
        shown = collections.Counter()
        with open(self.notes, 'rb') as f:
            for raw in f:
                try:
                    line = json.loads(raw)
                except ValueError:
                    self.violation('a notifier line is not JSON: %r' % raw[:200])
                    continue
                shown[(line['id'], line['due'])] += 1
        fired = collections.Counter((h['id'], h['due']) for h in self.history if h['event'] == 'fired')
        recorded = collections.Counter((h['id'], h['due']) for h in self.history
                                       if h['event'] in ('fired', 'unconfirmed'))
        records = collections.defaultdict(set)
        cancelled_ids = set()
        for h in self.history:
            records[h['id']].add(h['due'])
            if h['event'] == 'cancelled':
                cancelled_ids.add(h['id'])
        pending = {(p['id'], p['next']) for p in self.pending}

        twice = [(k, n) for k, n in shown.items() if n > 1]
        for k, n in twice[:20]:
            self.violation('shown %d times: %s due %s' % (n, k[0], k[1]))
        dup_fired = [(k, n) for k, n in recorded.items() if n > 1]
        for k, n in dup_fired[:20]:
            self.violation('%d fired/unconfirmed records for %s due %s' % (n, k[0], k[1]))
        unrecorded = [k for k in shown if k not in recorded]
        for k in unrecorded[:20]:
            self.violation('shown without a fired or unconfirmed record: %s due %s' % k)
        never_shown = [k for k in fired if k not in shown]
        for k in never_shown[:20]:
            self.violation('history says fired, the notifier never printed it: %s due %s' % k)
        # Runs of consecutive unconfirmed records (history is in commit order): one per kill that landed
        # between a commit and the next one; none may exceed one commit batch.
        unconfirmed_runs, current = [], 0
        for h in self.history:
            if h['event'] not in ('fired', 'unconfirmed'):
                continue
            if h['event'] == 'unconfirmed':
                current += 1
            elif current:
                unconfirmed_runs.append(current)
                current = 0
        if current:
            unconfirmed_runs.append(current)
        beyond = sum(max(0, n - 1000) for n in unconfirmed_runs)
        if beyond:
            self.violation('%d unconfirmed records beyond the bound of one batch (runs %s)'
                           % (beyond, sorted(unconfirmed_runs)[-5:]))
        pending_ids = {p['id'] for p in self.pending}

        def kept(s):
            sid, first, _, _, calendar = s
            if calendar:    # occurrences missed while down collapse into the latest: any later trace
                return sid in pending_ids or any(d and parse_instant(d) >= parse_instant(first) for d in records[sid])
            return (sid, first) in pending or first in records[sid]
        lost = [s for s in self.acked_schedules if not kept(s)]
        self.counts['acknowledged pushes lost'] = len(lost)
        self.counts['shown twice'] = len(twice)
        self.counts['fired records never printed'] = len(never_shown)
        self.counts['unconfirmed records'] = sum(unconfirmed_runs)
        self.counts['unconfirmed runs (kills between a commit and its confirmation)'] = len(unconfirmed_runs)
        self.counts['largest unconfirmed run'] = max(unconfirmed_runs, default=0)
        self.counts['unconfirmed beyond the bound'] = beyond
        for s in lost[:20]:
            self.violation('acknowledged push lost: %s next %s (%s, op %d, calendar %s)' % s)
        lost_cancels = [c for c in self.acked_cancels if c[0] not in cancelled_ids]
        for c in lost_cancels[:20]:
            self.violation('acknowledged cancel lost: %s (op %d)' % c)
        # An acknowledged cancel stays done: unless the id was pushed again by that op or a later one, nothing of it fires
        # after its last `cancelled` record (a cancel undone by a crash would fire again).
        last_cancel = {}
        for n, h in enumerate(self.history):
            if h['event'] == 'cancelled':
                last_cancel[h['id']] = n
        resurrected = []
        for sid, index in self.acked_cancels:
            if any(i >= index for i in self.pushed_at.get(sid, [])) or sid not in last_cancel:
                continue
            later = [h for h in self.history[last_cancel[sid] + 1:] if h['id'] == sid and h['event'] in ('fired', 'missed')]
            if later:
                resurrected.append((sid, index, later[0]['due']))
        for r in resurrected[:20]:
            self.violation('fired after an acknowledged cancel: %s (op %d), due %s' % r)
        self.counts['acked cancels checked for resurrection'] = len(
            [1 for sid, index in self.acked_cancels if not any(i >= index for i in self.pushed_at.get(sid, []))])

        con = sqlite3.connect(self.db)
        integrity = [row[0] for row in con.execute('PRAGMA integrity_check')]
        con.close()
        if integrity != ['ok']:
            self.violation('PRAGMA integrity_check: %s' % integrity[:5])

        events = collections.Counter(h['event'] for h in self.history)
        c = self.counts
        c['notifications shown'] = sum(shown.values())
        c['fired records'] = sum(fired.values())
        c['unconfirmed and not shown (killed between commit and display)'] = len(
            [k for k in recorded if k not in shown])
        # Runs of consecutive recorded-but-not-shown firings (history is in commit order): one per kill
        # that landed between a batch commit and its displays; the largest is the loss window.
        runs, current = [], 0
        for h in self.history:
            if h['event'] not in ('fired', 'unconfirmed'):
                continue
            if (h['id'], h['due']) in shown:
                if current:
                    runs.append(current)
                current = 0
            else:
                current += 1
        if current:
            runs.append(current)
        c['lost-display runs (kills between commit and display)'] = len(runs)
        c['largest lost-display run'] = max(runs, default=0)
        c['acked schedules'] = len(self.acked_schedules)
        c['acked cancels'] = len(self.acked_cancels)
        c['pending at end'] = len(self.pending)
        c['history records'] = len(self.history)
        for e, n in events.items():
            c['history ' + e] = n
        for kind, samples in self.durations.items():
            c['mean ms per %s' % kind] = round(1000 * sum(samples) / len(samples), 1)
        c['daemon starts'] = self.daemon.starts
        c['start retries (name still held)'] = self.daemon.start_retries
        c['integrity_check'] = integrity[0] if integrity else 'none'


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--schedd', required=True, help='the schedd binary')
    parser.add_argument('--seed', type=int, default=20261129)
    parser.add_argument('--kills', type=int, default=20)
    parser.add_argument('--ops', type=int, default=400)
    parser.add_argument('--workdir', help='keep the database, notifier output and log here')
    args = parser.parse_args()
    run = Run(args)
    try:
        run.execute()
    except Failure as e:
        print('HARNESS FAILURE: %s' % e, flush=True)
        return 2
    print('crash torture: seed %d, work dir %s' % (args.seed, run.work))
    for key in sorted(run.counts):
        print('  %-58s %s' % (key, run.counts[key]))
    if run.violations:
        print('FAILED: %d violations' % len(run.violations))
        return 1
    print('OK: no acknowledged push or cancel lost, nothing shown twice, every fired record printed, '
          'unconfirmed within the bound, integrity ok')
    if not args.workdir:
        shutil.rmtree(run.work, ignore_errors=True)
    return 0


if __name__ == '__main__':
    sys.exit(main())
