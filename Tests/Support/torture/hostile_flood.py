"""The flood and markup parts of hostile_input.py: 10,000 bad pushes with the daemon's memory read
before and after, and notification text that looks like markup shown literally."""

import json
import os
import time

from hostile_support import push_text

# The flood may grow the daemon's resident set by at most this much (VmRSS after − before), and
# its peak (VmHWM) by at most FLOOD_PEAK_GROWTH_BOUND_KB over the resident set before the flood.
FLOOD_RSS_GROWTH_BOUND_KB = 50 * 1024
FLOOD_PEAK_GROWTH_BOUND_KB = 100 * 1024


class FloodAndMarkup:
    """Mixed into `Hostile`; uses its daemon, dbus_call, rows, answering and file helpers."""

    # -- flood -----------------------------------------------------------------------------------

    def flood_lines(self, n):
        kinds = [
            lambda i: '{"bk":{"local":{"id":"run_f:%d","at":"2026-03-08T09:00"}}}' % i,              # no title
            lambda i: '{"bk":{"local":{"id":"run_f:%d","at":"yesterday","title":"t"}}}' % i,           # bad at
            lambda i: '{"bk":{"local":' + '[' * 200 + ']' * 200 + '}}',                                 # nesting
            lambda i: '{"bk":{"local":{"id":"","at":"2026-03-08T09:00","title":"t"}}}',                # empty id
            lambda i: 'not json %d' % i,
            lambda i: '{"bk":{"local":{"id":"run_f:%d","calendar":"Mon..Fry 25:61","title":"t"}}}' % i,
            lambda i: push_text(id='run_f:%d' % i, title='x' * 2000),                                  # title > 1 KiB
            lambda i: push_text(id='run_f:%d' % i, timeZone='Mars/Olympus_Mons'),
        ]
        lines = []
        for i in range(n):
            if i % 100 == 99:
                lines.append(push_text(id='run_f:%d' % i, body='y' * 70_000))                       # > 64 KiB
            else:
                lines.append(kinds[i % len(kinds)](i))
        return lines

    def flood(self):
        if self.args.only and not any('flood' in o for o in self.args.only):
            return
        lines = self.flood_lines(10_000)
        before_rows = self.rows()
        try:    # reset VmHWM to the current VmRSS (Linux ≥ 4.0), so the peak read after is the flood's own
            with open('/proc/%d/clear_refs' % self.daemon.pid, 'w') as f:
                f.write('5')
            self.figures['VmHWM reset before flood'] = 'yes'
        except OSError:
            self.figures['VmHWM reset before flood'] = 'no (not permitted): the peak may predate the flood'
        before = self.daemon.status()
        started = time.monotonic()
        problems = []
        path = self.file('flood.ndjson', '\n'.join(lines) + '\n')
        r = self.daemon.cli(['push', path, '--json'])
        answers = [json.loads(l) for l in r.stdout.splitlines() if l.strip()]
        if r.returncode != 1 or len(answers) != 10_000 or any('error' not in a for a in answers):
            problems.append('NDJSON flood: exit %d, %d answers, %d not errors' % (
                r.returncode, len(answers), len([a for a in answers if 'error' not in a])))
        for i in range(0, 10_000, 10):         # one D-Bus call each for 1,000 of them
            kind, detail = self.dbus_call('Push', 's', [lines[i]])
            if kind != 'error' or not detail.startswith('org.schedd.Scheduler1.Error.InvalidPush'):
                problems.append('D-Bus Push of flood line %d: %s %s' % (i, kind, str(detail)[:200]))
                break
        for i in range(0, 10_000, 100):        # one CLI call each for 100 of them
            rr = self.daemon.cli(['push', '-'], input=lines[i])
            if rr.returncode != 1 or not rr.stderr.strip():
                problems.append('CLI push of flood line %d: exit %d' % (i, rr.returncode))
                break
        self.figures['flood seconds'] = round(time.monotonic() - started, 1)
        problems.append(self.answering())
        after = self.daemon.status()
        after_rows = self.rows()
        if after_rows != before_rows:
            problems.append('stored something: rows %s → %s' % (before_rows, after_rows))
        for key in ('VmRSS', 'VmHWM'):
            self.figures['%s before flood kB' % key] = before[key]
            self.figures['%s after flood kB' % key] = after[key]
        growth = after['VmRSS'] - before['VmRSS']
        peak = after['VmHWM'] - before['VmRSS']
        self.figures['VmRSS growth kB (bound %d)' % FLOOD_RSS_GROWTH_BOUND_KB] = growth
        self.figures['VmHWM over VmRSS before kB (bound %d)' % FLOOD_PEAK_GROWTH_BOUND_KB] = peak
        if growth > FLOOD_RSS_GROWTH_BOUND_KB:
            problems.append('VmRSS grew by %d kB (bound %d kB)' % (growth, FLOOD_RSS_GROWTH_BOUND_KB))
        if peak > FLOOD_PEAK_GROWTH_BOUND_KB:
            problems.append('VmHWM rose %d kB above the resident set before (bound %d kB)' % (peak, FLOOD_PEAK_GROWTH_BOUND_KB))
        problems = [p for p in problems if p]
        problem = '; '.join(problems) if problems else None
        self.results.append(('flood of 10000 bad pushes', problem))
        print('PASS flood of 10000 bad pushes' if problem is None else 'FAIL flood of 10000 bad pushes: %s' % problem, flush=True)

    # -- markup ----------------------------------------------------------------------------------

    def markup(self):
        if self.args.only and not any('markup' in o for o in self.args.only):
            return
        title = '<b>bold</b> &amp; <i>it</i>'
        body = 'see <a href="https://example.org/?a=1&b=2">here</a> &lt;3 &#x41; <img src=x onerror=alert(1)>'
        problem = None
        r = self.daemon.cli(['push', '-', '--json'], input=json.dumps(
            {'bk': {'local': {'id': 'run_m:markup', 'at': '2026-03-07T12:30:00Z', 'title': title, 'body': body}}}))
        if r.returncode != 0:
            problem = 'push failed: %s' % r.stderr
        else:
            size = os.path.getsize(self.notes)
            r = self.daemon.cli(['clock', 'advance', '1h'])
            with open(self.notes, 'rb') as f:
                f.seek(size)
                shown = [json.loads(l) for l in f.read().splitlines() if l.strip()]
            mine = [s for s in shown if s.get('id') == 'run_m:markup']
            if len(mine) != 1:
                problem = 'shown %d times' % len(mine)
            elif mine[0].get('title') != title or mine[0].get('body') != body:
                problem = 'not literal: title %r body %r' % (mine[0].get('title'), mine[0].get('body'))
        problem = problem or self.answering()
        self.results.append(('markup shown literally', problem))
        print('PASS markup shown literally' if problem is None else 'FAIL markup shown literally: %s' % problem, flush=True)
