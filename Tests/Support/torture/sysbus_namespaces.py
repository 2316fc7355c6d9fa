#!/usr/bin/python3
"""On a bus of several users a namespace is per user *and* app (CONTRACT §8 v3, issue 31).

Needs root (it runs processes as other users with setpriv). Uses the users of sysbus_refusal.py
(`schedd`, group `schedd`, `schedd-tmember`) and one more member, `schedd-tmember2` (created when
missing). The daemon runs as user `schedd` on a private system-like bus (the shipped
units/org.schedd.Scheduler1.conf included), `--allow-group schedd`.

Two real users of the allowed group, A and B, each push `shared:1` (no --app: both the default app):
  - both are scheduled (two namespaces), each `list`/`history` shows only its own;
  - B's cancel of `shared:1` and of run `shared` cancels only B's; A's stays pending;
  - B may not list every app, nor name A's namespace (`--app uA:org.schedd.Default`);
  - B's process is another user's, so the daemon cannot read its /proc/PID/root: B counts as
    sandboxed (issue 31 item 6) — `--app org.example.Victim` is refused, also from a fake Flatpak
    sandbox (unshare -m + chroot with a /.flatpak-info, as B);
  - root sees both with `list --all-apps` (app `uUID:org.schedd.Default`) and may name A's namespace.
Signals (a daemon of its own): A and B each run a listener (Tests/Support/isolation/listener.py, as
that user) that subscribes to its own signals, matches every signal on the bus and, for B, also asks to
eavesdrop and tries SubscribeAllApps; root listens with SubscribeAllApps. A and B push, A cancels one,
the clock moves and both fire:
  - A receives its own NotificationShown and NotificationCancelled (the channel works), B its own;
  - neither receives anything of the other: no signal naming the other's namespace, title or id;
  - B's SubscribeAllApps is refused; root's all-apps subscription receives both users' signals.
On main 067d7ec A and B shared `org.schedd.Default`: B listed A's title, cancelled A's schedule,
listed every app and acted as any app.
Prints `PASS name` / `FAIL name: why`; exits 0 when all pass, 1 otherwise, 77 when not root.
"""

import json
import os
import time
import pwd
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torture_common import HERE, Failure, Schedd  # noqa: E402
import sysbus_refusal  # noqa: E402
from sysbus_refusal import OWNER, MEMBER, REPO, as_user, ensure_users  # noqa: E402

MEMBER2 = 'schedd-tmember2'
DEFAULT = 'org.schedd.Default'

SANDBOX = r'''
set -e
R="$1"; APP="$2"; shift 2
mount -t tmpfs tmpfs "$R"
for p in /*; do
    d="${p#/}"
    if [ -L "$p" ]; then ln -s "$(readlink "$p")" "$R/$d"
    elif [ -d "$p" ]; then mkdir -p "$R/$d"; mount --rbind "$p" "$R/$d"; fi
done
printf '[Application]\nname=%s\n' "$APP" > "$R/.flatpak-info"
exec chroot "$R" "$@"
'''


def ensure_member2():
    try:
        pwd.getpwnam(MEMBER2)
    except KeyError:
        subprocess.run(['useradd', '--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell',
                        '/usr/sbin/nologin', '-G', 'schedd', MEMBER2], check=True, capture_output=True)


class Namespaces(sysbus_refusal.Refusal):
    def ids(self, r):
        if r.returncode != 0:
            return 'exit %d: %s' % (r.returncode, r.stderr.strip()[:300])
        return sorted((p.get('app', ''), p['id'], p.get('title', '')) for p in json.loads(r.stdout))

    def check(self, name, ok, why):
        self.record(name, None if ok else why)

    def execute(self):
        work = tempfile.mkdtemp(prefix='schedd-sysns-')
        os.chmod(work, 0o755)
        try:
            self.scenario_ns(work)
            self.scenario_signals(work)
        finally:
            if self.results and all(p is None for _, p in self.results):
                shutil.rmtree(work, ignore_errors=True)
            else:
                print('work dir (logs): %s' % work)

    def kiosk_daemon(self, work, bus_name, prefix):
        """A system-mode daemon as OWNER on a private bus with the shipped policy, group `schedd` allowed;
        its files in `work` under `prefix` (state dir, notifications, log)."""
        state = os.path.join(work, prefix + 'state')
        os.mkdir(state, 0o700)
        owner = pwd.getpwnam(OWNER)
        os.chown(state, owner.pw_uid, owner.pw_gid)
        bus = self.bus_with(work, bus_name, '<include>%s</include>' % os.path.join(REPO, 'units/org.schedd.Scheduler1.conf'))
        daemon = Schedd(self.binary, bus, os.path.join(state, 'schedd.db'), os.path.join(work, prefix + 'notes.jsonl'),
                        os.path.join(work, prefix + 'daemon.log'), run_prefix=as_user(OWNER), run_args=['--allow-group', 'schedd'])
        return bus, daemon

    def scenario_ns(self, work):
        bus, daemon = self.kiosk_daemon(work, 'ns', '')
        a, b = as_user(MEMBER), as_user(MEMBER2)
        uid_a, uid_b = pwd.getpwnam(MEMBER).pw_uid, pwd.getpwnam(MEMBER2).pw_uid
        key_a, key_b = 'u%d:%s' % (uid_a, DEFAULT), 'u%d:%s' % (uid_b, DEFAULT)

        def push(prefix, sid, title, extra=()):
            text = json.dumps({'bk': {'local': {'id': sid, 'at': '2026-03-08T09:00', 'title': title}}})
            return daemon.cli(['push', '-', '--json'] + list(extra), input=text, prefix=prefix, timeout=60)

        try:
            daemon.start('2026-03-07T12:00:00Z')
            for label, prefix, title in [('A', a, 'A secret'), ('B', b, 'B own')]:
                r = push(prefix, 'shared:1', title)
                status = json.loads(r.stdout.splitlines()[0]).get('status') if r.returncode == 0 and r.stdout else None
                self.check('namespaces / %s schedules shared:1 in its own namespace' % label, status == 'scheduled',
                           'exit %d %s %s' % (r.returncode, r.stdout.strip()[:200], r.stderr.strip()[:200]))
            self.check('namespaces / A lists only its own', self.ids(daemon.cli(['list', '--json'], prefix=a)) ==
                       [(key_a, 'shared:1', 'A secret')], str(self.ids(daemon.cli(['list', '--json'], prefix=a))))
            listed_b = self.ids(daemon.cli(['list', '--json'], prefix=b))
            self.check('namespaces / B lists only its own', listed_b == [(key_b, 'shared:1', 'B own')], str(listed_b))

            r = daemon.cli(['cancel', 'shared:1', '--json'], prefix=b)
            r2 = daemon.cli(['cancel', '--run', 'shared', '--json'], prefix=b)
            self.check('namespaces / B cancels only its own', r.returncode == 0 and r2.returncode == 0 and
                       self.ids(daemon.cli(['list', '--json'], prefix=a)) == [(key_a, 'shared:1', 'A secret')],
                       'A after B cancelled: %s (%s %s)' % (self.ids(daemon.cli(['list', '--json'], prefix=a)),
                                                           r.stdout.strip(), r2.stdout.strip()))
            history_b = daemon.cli(['history', '--json', '--limit', '0'], prefix=b)
            self.check('namespaces / B history holds nothing of A', history_b.returncode == 0 and 'A secret' not in
                       history_b.stdout and 'B own' in history_b.stdout, history_b.stdout[:300] + history_b.stderr[:300])

            for label, args in [('list --all-apps', ['list', '--all-apps', '--json']),
                                ('history --all-apps', ['history', '--all-apps', '--json']),
                                ("list --app A's namespace", ['list', '--json', '--app', key_a]),
                                ("cancel in A's namespace", ['cancel', 'shared:1', '--app', key_a])]:
                r = daemon.cli(args, prefix=b)
                self.check('namespaces / B %s refused' % label, r.returncode != 0 and 'denied' in r.stderr.lower()
                           and 'A secret' not in r.stdout, 'exit %d: %s %s' % (r.returncode, r.stdout[:200], r.stderr[:300]))

            # Another user's process: the daemon (user schedd) cannot read its root, so it counts as sandboxed.
            r = push(b, 'victim:1', 'as another app', ['--app', 'org.example.Victim'])
            self.check('unreadable sandbox / B may not act as another app', r.returncode != 0 and 'denied' in r.stderr.lower(),
                       'exit %d: %s %s' % (r.returncode, r.stdout[:200], r.stderr[:300]))
            root = os.path.join(work, 'flatpak-root')
            os.mkdir(root)
            text = json.dumps({'bk': {'local': {'id': 'victim:2', 'at': '2026-03-08T09:00', 'title': 'x'}}})
            r = subprocess.run(['unshare', '-m', '--propagation', 'private', '/bin/sh', '-c', SANDBOX, 'sh', root,
                                'org.example.Spy'] + b + [self.binary, 'push', '-', '--app', 'org.example.Victim',
                                                          '--bus', bus.address],
                               input=text.encode(), capture_output=True, timeout=60)
            err = r.stderr.decode(errors='replace')
            self.check('unreadable sandbox / a Flatpak app of another uid may not act as another app',
                       r.returncode != 0 and 'denied' in err.lower(), 'exit %d: %s' % (r.returncode, err[:300]))
            victim = self.ids(daemon.cli(['list', '--all-apps', '--json']))
            self.check('unreadable sandbox / nothing stored for the victim', isinstance(victim, list) and
                       not any('Victim' in app for app, _, _ in victim), str(victim))

            everything = self.ids(daemon.cli(['list', '--all-apps', '--json']))
            self.check('namespaces / root lists every user with --all-apps', everything == [(key_a, 'shared:1', 'A secret')],
                       str(everything))
            named = self.ids(daemon.cli(['list', '--json', '--app', key_a]))
            self.check("namespaces / root may name A's namespace", named == [(key_a, 'shared:1', 'A secret')], str(named))
            own = self.ids(daemon.cli(['list', '--json']))
            self.check("namespaces / root's own list holds no user's", own == [], str(own))
        finally:
            daemon.kill9()
            bus.stop()

    def scenario_signals(self, work):
        """Signals of one user never reach another (CONTRACT §8 v3: a caller receives only its own uid's signals)."""
        bus, daemon = self.kiosk_daemon(work, 'sig', 'sig-')
        a, b = as_user(MEMBER), as_user(MEMBER2)
        key_a = 'u%d:%s' % (pwd.getpwnam(MEMBER).pw_uid, DEFAULT)
        key_b = 'u%d:%s' % (pwd.getpwnam(MEMBER2).pw_uid, DEFAULT)
        script = os.path.join(HERE, '..', 'isolation', 'listener.py')
        listeners = []

        def listen(label, prefix, extra):
            log = os.path.join(work, 'sig-listener-%s.jsonl' % label)
            open(log, 'w').close()
            os.chmod(log, 0o666)
            proc = subprocess.Popen(list(prefix) + ['/usr/bin/python3', script, '--address', bus.address, '--log', log]
                                    + extra, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                    stderr=open(log + '.err', 'wb'))
            listeners.append(proc)
            return log

        def events(log):
            with open(log, encoding='utf-8') as f:
                return [json.loads(line) for line in f if line.strip()]

        def signals(log):
            return [e for e in events(log) if e.get('event') == 'signal' and e.get('interface') == 'org.schedd.Scheduler1']

        def wait_for(condition, seconds=60):
            deadline = time.monotonic() + seconds
            while time.monotonic() < deadline:
                if condition():
                    return True
                time.sleep(0.05)
            return condition()

        def push(prefix, sid, title, at='2026-03-08T09:00'):
            text = json.dumps({'bk': {'local': {'id': sid, 'at': at, 'title': title}}})
            return daemon.cli(['push', '-', '--json'], input=text, prefix=prefix, timeout=60)

        try:
            daemon.start('2026-03-07T12:00:00Z')
            log_a = listen('A', a, [])
            log_b = listen('B', b, ['--eavesdrop', '--try-all-apps'])
            log_root = listen('root', [], ['--try-all-apps'])
            ready = wait_for(lambda: all(any(e.get('event') == 'ready' for e in events(log))
                                         for log in (log_a, log_b, log_root)))
            if not ready:
                raise Failure('the listeners did not start: %s' % [open(l + '.err').read()[-300:]
                                                                     for l in (log_a, log_b, log_root)])
            by_event = lambda log, name: [e for e in events(log) if e.get('event') == name]
            subscribed = by_event(log_a, 'subscribe') + by_event(log_b, 'subscribe')
            self.check('signals / A and B subscribe to their own signals', len(subscribed) == 2 and
                       all(e.get('ok') for e in subscribed), str(subscribed))
            all_b = by_event(log_b, 'subscribe-all')
            self.check('signals / B may not subscribe to every app', len(all_b) == 1 and not all_b[0].get('ok') and
                       'AccessDenied' in all_b[0].get('error', ''), str(all_b))
            all_root = by_event(log_root, 'subscribe-all')
            self.check('signals / root subscribes to every app', len(all_root) == 1 and all_root[0].get('ok'), str(all_root))

            results = [push(a, 'shared:1', 'A secret'), push(a, 'a-only:1', 'A cancelled secret'),
                       push(b, 'shared:1', 'B own'), daemon.cli(['cancel', 'a-only:1', '--json'], prefix=a)]
            self.check('signals / the pushes and the cancel are served', all(r.returncode == 0 for r in results),
                       str([(r.returncode, r.stderr[-200:]) for r in results]))
            r = daemon.cli(['clock', 'advance', '2d', '--json'])
            self.check('signals / root moves the clock', r.returncode == 0, r.stderr[-300:])

            # A barrier per user: its own cancel after everything else. The bus keeps the order of one
            # sender's messages to one receiver, so once a listener has its barrier, every signal the daemon
            # sent it before (a leak included) has arrived: no waiting for absence.
            for prefix in (a, b):
                push(prefix, 'barrier:1', 'barrier', at='2026-04-01T09:00')
                daemon.cli(['cancel', 'barrier:1', '--json'], prefix=prefix)

            def members(log):
                return sorted((e.get('member'), e['args'][0], e['args'][-1]) for e in signals(log))
            want_a = [('NotificationCancelled', 'a-only:1', key_a), ('NotificationCancelled', 'barrier:1', key_a),
                      ('NotificationShown', 'shared:1', key_a)]
            want_b = [('NotificationCancelled', 'barrier:1', key_b), ('NotificationShown', 'shared:1', key_b)]
            barrier = lambda log, key: ('NotificationCancelled', 'barrier:1', key) in members(log)
            wait_for(lambda: barrier(log_a, key_a) and barrier(log_b, key_b)
                     and {key_a, key_b} <= {e['args'][-1] for e in signals(log_root) if e['args'][0] == 'barrier:1'}, 60)
            self.check('signals / A receives its own signals', set(want_a) <= set(members(log_a)), str(members(log_a)))
            self.check('signals / B receives its own signals', set(want_b) <= set(members(log_b)), str(members(log_b)))
            text_a = json.dumps(signals(log_a))
            text_b = json.dumps(signals(log_b))
            self.check('signals / A receives nothing of B', key_b not in text_a and 'B own' not in text_a and
                       members(log_a) == want_a, text_a[:600])
            self.check('signals / B receives nothing of A, even asking to eavesdrop', key_a not in text_b and
                       'A secret' not in text_b and 'a-only' not in text_b and members(log_b) == want_b, text_b[:600])
            destinations = {e.get('destination') for e in signals(log_a) + signals(log_b)}
            self.check('signals / every signal is unicast', None not in destinations and '' not in destinations,
                       str(destinations))
            root_keys = {e['args'][-1] for e in signals(log_root)}
            self.check('signals / root receives both users\' signals', {key_a, key_b} <= root_keys, str(root_keys))
        finally:
            for proc in listeners:
                proc.terminate()
                proc.wait()
            daemon.kill9()
            bus.stop()


def main():
    import argparse
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--schedd', required=True)
    args = parser.parse_args()
    if os.geteuid() != 0:
        print('SKIP: needs root to run processes as other users')
        return 77
    try:
        ensure_users()
        ensure_member2()
        run = Namespaces(os.path.abspath(args.schedd))
        run.execute()
    except (Failure, subprocess.CalledProcessError) as e:
        print('HARNESS FAILURE: %s' % e, flush=True)
        return 2
    failed = [r for r in run.results if r[1] is not None]
    print('system-bus namespaces: %d checks, %d failed' % (len(run.results), len(failed)))
    for name, why in failed:
        print('VIOLATION: %s: %s' % (name, why))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
