"""Shared constants and push builders of the hostile-input drivers."""

import json

MIB = 1 << 20
_serial = [0]


def push_text(**local):
    """A valid push with `local` members replaced; each under a new id (run_hN:x) unless given, so a
    push wrongly accepted by one case cannot change the answer of another."""
    _serial[0] += 1
    base = {'id': 'run_h%d:x' % _serial[0], 'at': '2026-03-08T09:00', 'title': 'hostile'}
    base.update(local)
    return json.dumps({'bk': {'local': {k: v for k, v in base.items() if v is not None}}})
