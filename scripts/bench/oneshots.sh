#!/usr/bin/env bash
# Bulk through the CLI (issue 35 item 4): ONE `schedd push FILE --json` of COUNT NDJSON lines, each a
# floating one-shot spread over a year with a 20-byte title and ids numbered per run, exactly the issue's
# line format:
#   {"bk":{"local":{"id":"run_4711:s47110","at":"2027-03-01T10:00:00","title":"Reminder 00000047110"}}}
# Measures end to end (CLI start to its last answer: the CLI exits after the last one), counts the
# answers that say "scheduled" and the rows stored, the daemon's VmRSS after the load and after a restart
# (target 80 MB), and the same run's baseline: Python's sqlite3 inserting the same rows into the same
# schema in ONE transaction (WAL, synchronous=FULL, pending_counts written once, as the daemon writes it).
# Prints RESULT oneshots_push_file_rate (against the 50,000/s target) and oneshots_push_file_vs_raw.
# Usage: [SKIP_BUILD=1 SCHEDD=…] scripts/bench/oneshots.sh [COUNT]   (default 1000000)
set -euo pipefail
source "$(dirname "$0")/common.sh"
count="${1:-1000000}"
bench_build
bench_setup
bench_machine

"$PY" - "$count" > "$BENCH_DIR/load.ndjson" <<'EOF'
import datetime, sys
count = int(sys.argv[1])
start = datetime.datetime(2027, 1, 1, 10, 0, 0)
span = 365 * 86400
out = sys.stdout
for i in range(count):
    at = (start + datetime.timedelta(seconds=span * i // count)).strftime("%Y-%m-%dT%H:%M:%S")
    out.write('{"bk":{"local":{"id":"run_%d:s%d","at":"%s","title":"Reminder %011d"}}}\n' % (i // 10, i, at, i))
EOF
echo "generated $count one-shots ($(du -h "$BENCH_DIR/load.ndjson" | cut -f1)); first line: $(head -1 "$BENCH_DIR/load.ndjson")"

db="$BENCH_DIR/schedd.db"
bench_start_daemon "$db" /dev/null "$BENCH_DIR/daemon.err" --notifier none --tz UTC
load_s=$(timed sh -c '"$0" push "$1" --json --bus "$2" > "$3" 2> "$3.err"' "$SCHEDD" "$BENCH_DIR/load.ndjson" "$BUS_ADDR" "$BENCH_DIR/push.out" || true)
scheduled=$(grep -c '"status":"scheduled"' "$BENCH_DIR/push.out" || true)
loaded_rss=$(rss_kb "$DAEMON_PID")
rate=$(echo "scale=1; $count / $load_s" | bc)
echo "push FILE: $scheduled of $count answered scheduled in $load_s s = $rate pushes/s; daemon VmRSS after the load $loaded_rss kB"
bench_stop_daemon
stored=$(sqlite3 "$db" 'SELECT count(*) FROM schedules')
echo "rows stored: $stored"
bench_start_daemon "$db" /dev/null "$BENCH_DIR/daemon.err" --notifier none --tz UTC
restart_rss=$(rss_kb "$DAEMON_PID")
echo "restart: READY=1 after $READY_MS ms; VmRSS $restart_rss kB"
bench_stop_daemon
if [ "$scheduled" != "$count" ] || [ "$stored" != "$count" ]; then
    echo "the load stopped short; the CLI's stderr begins with:"; head -3 "$BENCH_DIR/push.out.err"; exit 1
fi

# The baseline: the same rows into the same schema (the daemon creates it), one transaction.
bench_start_daemon "$BENCH_DIR/raw.db" /dev/null "$BENCH_DIR/d3.err" --notifier none --tz UTC
bench_stop_daemon
raw=$("$PY" - "$BENCH_DIR/raw.db" "$BENCH_DIR/load.ndjson" <<'EOF'
import datetime, hashlib, json, sqlite3, sys, time
db, path = sys.argv[1], sys.argv[2]
now = int(time.time() * 1e6)
rows, sizes = [], []
for line in open(path):
    l = json.loads(line)["bk"]["local"]
    # A floating instant in the daemon's zone (UTC here): kind 1 and the detail text the daemon stores
    # (StoreRowCoding.detail: the wall time and when it was stored, length-prefixed), so that each raw
    # row is as long as the daemon's.
    due = int(datetime.datetime.fromisoformat(l["at"]).replace(tzinfo=datetime.timezone.utc).timestamp() * 1e6)
    fp = json.dumps(l, separators=(",", ":"), sort_keys=True)
    wall, stored = "%d" % due, "%d" % now
    detail = "1:w%d:%s1:T%d:%s" % (len(wall), wall, len(stored), stored)
    rows.append((l["id"], due, hashlib.sha256(fp.encode()).digest(), l["title"], detail))
    sizes.append((64 + len(l["id"].encode()) + len(l["title"].encode()) + len(detail),))
sql = "INSERT INTO schedules(app, id, next_due, kind, digest, title, detail) VALUES(1, ?1, ?2, 1, ?3, ?4, ?5)"
# The totals once per transaction, as the daemon's store writes them (PendingCounts holds them, issue 35).
counts_sql = ("INSERT INTO pending_counts(app, n, bytes) VALUES (1, ?1, ?2) "
              "ON CONFLICT(app) DO UPDATE SET n = n + excluded.n, bytes = bytes + excluded.bytes")
c = sqlite3.connect(db, isolation_level=None)
c.execute("PRAGMA journal_mode = WAL"); c.execute("PRAGMA synchronous = FULL")
c.execute("INSERT OR IGNORE INTO apps(n, name) VALUES(1, 'org.schedd.Default')")
t = time.monotonic()
c.execute("BEGIN IMMEDIATE"); c.executemany(sql, rows)
c.execute(counts_sql, (len(rows), sum(s[0] for s in sizes))); c.execute("COMMIT")
print("%.1f" % (len(rows) / (time.monotonic() - t)))
EOF
)
echo "raw sqlite3, the same rows in one transaction: $raw rows/s"
result oneshots_push_file_rate "$rate" 50000 pushes/s higher
result oneshots_push_file_vs_raw "$rate" "$raw" pushes/s higher
result oneshots_restart_rss "$restart_rss" 81920 kB lower
