"""The seeded operation sequence of crash_torture.py: pushes (one-shots, calendars, duplicates,
cancel+local), cancels, tracks, fake-clock advances and steps (forward and back) and bulk NDJSON
loads. Depends only on the seed."""

import datetime as dt
import json

START = dt.datetime(2026, 3, 7, 12, 0, tzinfo=dt.timezone.utc)  # the US DST change is on day 2
CALENDARS = ['*-*-* 08:00', 'Mon..Fri 09:30', '*-*-* 12,18:15', 'Sat,Sun 10:00 Europe/Berlin',
             '*-*-* *:00/30', 'hourly', '*-*-01 08:30']
EVENTS = ['ev%d' % i for i in range(6)]
SPANS = [('10min', 600), ('45min', 2700), ('2h', 7200), ('6h', 21600), ('13h', 46800), ('1d', 86400),
         ('2d', 172800)]


def rfc3339(t):
    return t.astimezone(dt.timezone.utc).strftime('%Y-%m-%dT%H:%M:%SZ')


def parse_instant(text):
    return dt.datetime.fromisoformat(text.replace('Z', '+00:00'))


class Generator:
    """The seeded operation sequence. It depends only on the seed (never on the daemon's answers),
    so a seed names one sequence; `planned` is the clock if every advance were acknowledged."""

    def __init__(self, rng):
        self.rng = rng
        self.planned = START
        self.sent = []          # texts of earlier single pushes, for duplicates
        self.bulks = 0

    def schedule_id(self):
        r = self.rng
        return 'run_%d:s%d' % (r.randrange(24), r.randrange(6))

    def local(self, sid):
        r = self.rng
        local = {'id': sid, 'title': r.choice(['Stand up', 'Pills 💊', '<b>bold</b> &amp; co', 'Étude %d' % r.randrange(99)])}
        if r.random() < 0.75:
            at = self.planned + dt.timedelta(seconds=r.randrange(60, 3 * 86400))
            local['at'] = rfc3339(at) if r.random() < 0.5 else at.astimezone(
                dt.timezone(dt.timedelta(hours=-5))).strftime('%Y-%m-%dT%H:%M:%S')  # floating wall time
        else:
            local['calendar'] = r.choice(CALENDARS)
            if local['calendar'] in ('*-*-* *:00/30', 'hourly') or r.random() < 0.3:
                local['until'] = rfc3339(self.planned + dt.timedelta(seconds=r.randrange(3600, 2 * 86400)))
        if r.random() < 0.3:
            local['cancelOn'] = r.sample(EVENTS, r.randrange(1, 3))
        if r.random() < 0.2:
            local['body'] = 'body %d' % r.randrange(1000)
        if r.random() < 0.1:
            local['graceSeconds'] = r.choice([0, 60, 86400])
        return local

    def bulk_lines(self):
        r = self.rng
        self.bulks += 1
        lines = []
        for i in range(r.randrange(500, 4000)):
            x = r.random()
            if x < 0.02:
                lines.append(json.dumps({'bk': {'local': {'id': 'bad%d' % i, 'at': '2026-03-08T09:00'}}}))  # no title
            elif x < 0.03 and lines:
                lines.append(r.choice(lines))
            else:
                at = self.planned + dt.timedelta(seconds=r.randrange(60, 5 * 86400))
                local = {'id': 'bulk%d_%d:n' % (self.bulks, i), 'at': rfc3339(at), 'title': 'bulk %d' % i}
                if r.random() < 0.05:
                    local['cancelOn'] = [r.choice(EVENTS)]
                lines.append(json.dumps({'bk': {'local': local}, 'sender': 'relay'}))
        return lines

    def next_op(self):
        r = self.rng
        kind = r.choices(['push', 'dup', 'pushcancel', 'cancelpluslocal', 'cancel', 'track', 'advance', 'bulk',
                          'clockset'], [34, 10, 5, 3, 5, 5, 16, 2, 3])[0]
        if kind == 'dup' and not self.sent:
            kind = 'push'
        if kind == 'push':
            text = json.dumps({'bk': {'local': self.local(self.schedule_id()), 'messageId': 'm%d' % r.randrange(10**6)}})
            self.sent.append(text)
            return ('push', text)
        if kind == 'dup':
            return ('push', r.choice(self.sent))
        if kind == 'pushcancel':
            cancel = {'id': self.schedule_id()} if r.random() < 0.7 else {'run': 'run_%d' % r.randrange(24)}
            return ('push', json.dumps({'bk': {'cancel': cancel}}))
        if kind == 'cancelpluslocal':
            sid = self.schedule_id()
            text = json.dumps({'bk': {'cancel': {'id': sid}, 'local': self.local(sid)}})
            self.sent.append(text)
            return ('push', text)
        if kind == 'cancel':
            if r.random() < 0.7:
                return ('cancel', ['cancel', self.schedule_id()])
            return ('cancel', ['cancel', '--run', 'run_%d' % r.randrange(24)])
        if kind == 'track':
            return ('track', r.choice(EVENTS))
        if kind == 'clockset':
            # A wall-clock step (`clock set`, like date -s): forward jumps make what they pass late or
            # missed; backward ones make the next advances cross instants that already fired.
            step = r.randrange(1800, 86400) if r.random() < 0.6 else -r.randrange(3600, 86400)
            self.planned += dt.timedelta(seconds=step)
            return ('clockset', rfc3339(self.planned))
        if kind == 'advance':
            name, seconds = r.choices(SPANS, [3, 3, 3, 2, 2, 2, 1])[0]
            self.planned += dt.timedelta(seconds=seconds)
            return ('advance', name, seconds)
        return ('bulk', self.bulk_lines())
