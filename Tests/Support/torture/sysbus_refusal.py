#!/usr/bin/python3
"""On a system bus a caller outside the `schedd` group is refused (issue 6, item 4).

Needs root (it runs processes as other users with setpriv). Creates, when missing, the system user
and group `schedd` (as scripts/install.sh --create-user does) and two test users: `schedd-tmember`
(in group schedd) and `schedd-toutsider` (in no group of ours).

Two private system-like buses (system-bus.conf.in), the daemon running as user `schedd` on each:
  policy  — the shipped units/org.schedd.Scheduler1.conf included: the bus itself refuses outsiders;
  open    — a policy that lets everyone call: only the daemon's own credential check
            (`--allow-group schedd`: root, its own uid, or group schedd) can refuse the outsider.
            units/org.schedd.Scheduler1.conf and schedd-system.service promise that check.
The daemon gets `--allow-group schedd` on both: with `--bus ADDRESS` the check is off unless asked
for (it is on by default only with `--bus system`).
On each: root and the member may push (exit 0, stored); the outsider's push, list, history, track,
cancel and clock calls are refused (non-zero exit — docs/units.md says 3 — with a message naming the
denial), store nothing, and the daemon keeps answering.
Prints `PASS name` / `FAIL name: why`; exits 0 when all pass, 1 otherwise, 77 when not root.
"""

import grp
import json
import os
import pwd
import shutil
import sqlite3
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from torture_common import HERE, Bus, Failure, Schedd  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))
OWNER, MEMBER, OUTSIDER = 'schedd', 'schedd-tmember', 'schedd-toutsider'
OPEN_POLICY = '<policy context="default"><allow own="*"/><allow send_destination="*"/></policy>'


def ensure_users():
    """The users and group of the test; created only when missing (idempotent)."""
    def run(*args):
        subprocess.run(args, check=True, capture_output=True)
    try:
        grp.getgrnam('schedd')
    except KeyError:
        run('groupadd', '--system', 'schedd')
    for user, extra in [(OWNER, ['--gid', 'schedd']), (MEMBER, []), (OUTSIDER, [])]:
        try:
            pwd.getpwnam(user)
        except KeyError:
            run('useradd', '--system', '--no-create-home', '--home-dir', '/nonexistent', '--shell',
                '/usr/sbin/nologin', *extra, user)
    if MEMBER not in grp.getgrnam('schedd').gr_mem:
        run('usermod', '-aG', 'schedd', MEMBER)
    if OUTSIDER in grp.getgrnam('schedd').gr_mem or pwd.getpwnam(OUTSIDER).pw_gid == grp.getgrnam('schedd').gr_gid:
        raise Failure('%s is in group schedd; the test needs a user outside it' % OUTSIDER)


def as_user(user, init_groups=True):
    """setpriv prefix: run as `user` with its groups (the member) or with none (the outsider)."""
    return ['setpriv', '--reuid=' + user, '--regid=' + user] + (['--init-groups'] if init_groups else ['--clear-groups'])


class Refusal:
    def __init__(self, binary):
        self.binary = binary
        self.results = []

    def record(self, name, problem):
        self.results.append((name, problem))
        print(('PASS %s' % name) if problem is None else ('FAIL %s: %s' % (name, problem)), flush=True)

    def rows(self, db):
        con = sqlite3.connect('file:%s?mode=ro' % db, uri=True, timeout=30)
        try:
            tables = [r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            return {t: con.execute('SELECT count(*) FROM "%s"' % t).fetchone()[0] for t in tables if t != 'meta'}
        finally:
            con.close()

    def bus_with(self, work, name, policy):
        conf = os.path.join(work, name + '-bus.conf')
        with open(os.path.join(HERE, 'system-bus.conf.in')) as f:
            text = f.read()
        text = text.replace('@LISTEN@', 'unix:path=%s/%s-bus' % (work, name)).replace('@POLICY@', policy)
        with open(conf, 'w') as f:
            f.write(text)
        return Bus(config=conf)

    def scenario(self, work, name, policy):
        state = os.path.join(work, name + '-state')
        os.mkdir(state, 0o700)
        owner = pwd.getpwnam(OWNER)
        os.chown(state, owner.pw_uid, owner.pw_gid)
        db = os.path.join(state, 'schedd.db')
        bus = self.bus_with(work, name, policy)
        daemon = Schedd(self.binary, bus, db, os.path.join(work, name + '-notes.jsonl'),
                        os.path.join(work, name + '-daemon.log'), run_prefix=as_user(OWNER),
                        run_args=['--allow-group', 'schedd'])
        try:
            daemon.start('2026-03-07T12:00:00Z')
            self.allowed(daemon, name, 'root', (), 'run_root:a')
            self.allowed(daemon, name, 'member', as_user(MEMBER), 'run_member:a')
            before = self.rows(db)
            outsider = as_user(OUTSIDER, init_groups=False)
            push = json.dumps({'bk': {'local': {'id': 'run_out:a', 'at': '2026-03-08T09:00', 'title': 'intruder'}}})
            for label, args, stdin in [('push', ['push', '-'], push), ('list', ['list', '--json'], None),
                                       ('history', ['history', '--json'], None), ('track', ['track', 'ev'], None),
                                       ('cancel', ['cancel', '--run', 'run_root'], None),
                                       ('clock advance', ['clock', 'advance', '1d'], None)]:
                r = daemon.cli(args, input=stdin, prefix=outsider, timeout=60)
                problem = None
                if r.returncode == 0:
                    problem = 'accepted (exit 0): %s' % r.stdout.strip()[:200]
                elif 'denied' not in r.stderr.lower():
                    problem = 'exit %d without naming the denial: %s' % (r.returncode, r.stderr.strip()[:300])
                elif r.returncode != 3:
                    problem = 'refused with exit %d; docs/units.md says 3' % r.returncode
                self.record('%s bus / outsider %s refused' % (name, label), problem)
            after = self.rows(db)
            self.record('%s bus / outsider stored nothing' % name,
                        None if after == before else 'rows %s → %s' % (before, after))
            # Every user has a namespace of its own (CONTRACT §8 v3): root sees the member's with --all-apps.
            r = daemon.cli(['list', '--all-apps', '--json'])
            ids = sorted(p['id'] for p in json.loads(r.stdout)) if r.returncode == 0 else None
            self.record('%s bus / daemon still answers with the allowed pushes pending' % name,
                        None if ids == ['run_member:a', 'run_root:a'] else 'list: exit %d, %s' % (r.returncode, ids))
        finally:
            daemon.kill9()
            bus.stop()

    def allowed(self, daemon, name, label, prefix, sid):
        push = json.dumps({'bk': {'local': {'id': sid, 'at': '2026-03-08T09:00', 'title': 'allowed'}}})
        r = daemon.cli(['push', '-', '--json'], input=push, prefix=prefix, timeout=60)
        ok = r.returncode == 0 and json.loads(r.stdout.splitlines()[0]).get('status') == 'scheduled'
        self.record('%s bus / %s may push' % (name, label), None if ok else 'exit %d: %s' % (r.returncode, r.stderr.strip()[:300]))

    def execute(self):
        work = tempfile.mkdtemp(prefix='schedd-sysbus-')
        os.chmod(work, 0o755)
        try:
            self.scenario(work, 'policy', '<include>%s</include>' % os.path.join(REPO, 'units/org.schedd.Scheduler1.conf'))
            self.scenario(work, 'open', OPEN_POLICY)
        finally:
            if self.results and all(p is None for _, p in self.results):
                shutil.rmtree(work, ignore_errors=True)
            else:
                print('work dir (logs): %s' % work)


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
        run = Refusal(os.path.abspath(args.schedd))
        run.execute()
    except (Failure, subprocess.CalledProcessError) as e:
        print('HARNESS FAILURE: %s' % e, flush=True)
        return 2
    failed = [r for r in run.results if r[1] is not None]
    print('system-bus refusal: %d checks, %d failed' % (len(run.results), len(failed)))
    for name, why in failed:
        print('VIOLATION: %s: %s' % (name, why))
    return 1 if failed else 0


if __name__ == '__main__':
    sys.exit(main())
