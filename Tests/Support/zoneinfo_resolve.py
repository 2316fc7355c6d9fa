#!/usr/bin/python3
"""Reference for ResolveDifferentialTests: resolves wall-clock times with Python's zoneinfo.

Input (file named by argv[1]): one case per line, `ZONE YEAR MONTH DAY HOUR MINUTE SECOND MICROSECOND`;
ZONE is an IANA name, or an absolute path to a TZif file (read with ZoneInfo.from_file).
Output (stdout): one line per case, `INSTANT_US OFFSET_S KIND LATER_US`, where INSTANT_US is the
instant of the wall time with fold=0 (RFC 5545: gap -> offset before the gap, fold -> first
occurrence), OFFSET_S the offset fold=0 applies, KIND unique|gap|fold, and LATER_US the instant
with fold=1 ("-" when unique).
"""
import sys
from datetime import datetime, timedelta, timezone
from zoneinfo import ZoneInfo

EPOCH = datetime(1970, 1, 1)


def micros(naive, offset):
    delta = naive - offset - EPOCH
    return (delta.days * 86400 + delta.seconds) * 1_000_000 + delta.microseconds


def main():
    zones = {}
    out = []
    with open(sys.argv[1]) as f:
        for line in f:
            parts = line.split()
            if not parts:
                continue
            name = parts[0]
            zone = zones.get(name)
            if zone is None:
                if name.startswith("/"):
                    with open(name, "rb") as f_zone:
                        zone = ZoneInfo.from_file(f_zone, key=name)
                else:
                    zone = ZoneInfo(name)
                zones[name] = zone
            naive = datetime(*map(int, parts[1:8]))
            first = naive.replace(tzinfo=zone, fold=0)
            second = naive.replace(tzinfo=zone, fold=1)
            off0, off1 = first.utcoffset(), second.utcoffset()
            if off0 == off1:
                kind = "unique"
            else:
                back = first.astimezone(timezone.utc).astimezone(zone).replace(tzinfo=None)
                kind = "fold" if back == naive else "gap"
            later = "-" if kind == "unique" else str(micros(naive, off1))
            out.append(f"{micros(naive, off0)} {int(off0 // timedelta(seconds=1))} {kind} {later}")
    sys.stdout.write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
