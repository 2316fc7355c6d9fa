#!/usr/bin/env bash
# Push rate, the same COUNT one-shot rows three ways, each into a fresh database (WAL, synchronous=FULL):
#   dbus:   one Push(s) per call from 4 concurrent clients (dbus-python, one process each, released
#           together); every reply is sent only after the push is durable;
#   batch:  `schedd push FILE` with the rows as NDJSON (PushBatch of 1000 → one group commit each);
#   raw:    the ceiling — Python's sqlite3 inserting the same rows into the same schema with a prepared
#           statement in ONE transaction (batch and raw: best of RUNS, default 3, each into a fresh
#           database); also one transaction (one fsync) per row, the ceiling for
#           "acknowledged one at a time".
# Also the D-Bus round-trip rate of the same 4 clients calling ClockShow (nothing written): the
# client+bus ceiling, showing what the durable pushes cost on top.
# CLIENTS (default 4) sets the number of concurrent clients of the dbus rows (e.g. CLIENTS=16).
# Usage: [CLIENTS=N] scripts/bench/pushrate.sh [COUNT]   (default 20000)
set -euo pipefail
source "$(dirname "$0")/common.sh"
count="${1:-20000}"
nclients="${CLIENTS:-4}"
bench_build
bench_setup
bench_machine
gen_pushes "$count" $(( $(date +%s) + 86400 )) 86400 oneshot p > "$BENCH_DIR/rows.ndjson"

# clients METHOD FILE: $nclients processes split FILE round-robin and call METHOD once per line; prints
# "calls seconds ok busy" (ok = every Push answered "scheduled"; busy = the share of the machine's CPU time,
# all cores, that was not idle while they ran, from /proc/stat: near 1, the cores are the bound, not the disk).
clients() {
    "$PY" - "$BUS_ADDR" "$1" "$2" "$nclients" <<'EOF'
import json, multiprocessing as mp, sys, time
import dbus
addr, method, path = sys.argv[1], sys.argv[2], sys.argv[3]
lines = [l.rstrip("\n") for l in open(path) if l.strip()]
N = int(sys.argv[4])
def work(i, barrier, out):
    conn = dbus.bus.BusConnection(addr)
    mine = lines[i::N]
    ok = True
    barrier.wait()
    for text in mine:
        if method == "Push":
            answer = conn.call_blocking("org.schedd.Scheduler1", "/org/schedd/Scheduler1", "org.schedd.Scheduler1",
                                        "Push", "s", [text], timeout=120)
            ok = ok and json.loads(answer)[0]["status"] == "scheduled"
        else:
            conn.call_blocking("org.schedd.Scheduler1", "/org/schedd/Scheduler1", "org.schedd.Scheduler1",
                               "ClockShow", "", [], timeout=120)
    out.put((time.monotonic(), len(mine), ok))
barrier, out = mp.Barrier(N + 1), mp.Queue()
procs = [mp.Process(target=work, args=(i, barrier, out)) for i in range(N)]
for p in procs: p.start()
def cpu():
    f = [int(x) for x in open("/proc/stat").readline().split()[1:]]
    return sum(f), f[3] + f[4]  # all, idle + iowait
barrier.wait()
t0 = time.monotonic()
c0 = cpu()
results = [out.get() for _ in procs]
c1 = cpu()
for p in procs: p.join()
busy = 1 - (c1[1] - c0[1]) / max(c1[0] - c0[0], 1)
print(sum(r[1] for r in results), "%.6f" % (max(r[0] for r in results) - t0), "yes" if all(r[2] for r in results) else "NO",
      "%.2f" % busy)
EOF
}

bench_start_daemon "$BENCH_DIR/dbus.db" /dev/null "$BENCH_DIR/d1.err" --notifier none --tz UTC
read -r pcalls psec pok pbusy < <(clients Push "$BENCH_DIR/rows.ndjson")
pending=$(sqlite3 "$BENCH_DIR/dbus.db" 'SELECT count(*) FROM schedules')
read -r ccalls csec _ cbusy < <(clients ClockShow "$BENCH_DIR/rows.ndjson")
bench_stop_daemon
dbus_rate=$(echo "scale=1; $pcalls / $psec" | bc)
show_rate=$(echo "scale=1; $ccalls / $csec" | bc)
echo "dbus: $pcalls Push calls from $nclients clients in $psec s = $dbus_rate/s (all scheduled: $pok; rows stored: $pending; machine CPU busy $pbusy)"
echo "dbus: $ccalls ClockShow calls (no write) from the same $nclients clients: $show_rate/s (machine CPU busy $cbusy)"
# How the Push calls shared commits (the daemon logs its group-commit statistics when it stops).
grep -o 'group commit: .*' "$BENCH_DIR/d1.err" | sed 's/^/dbus: /' || true

# The NDJSON load and its baseline (raw sqlite3, one transaction) each run RUNS times (default 3) into a
# fresh database, and the best of each is kept: a 10k load lasts a fraction of a second, and one run of
# each swung the ratio from 0.25 to 0.47 (BENCHMARKS.md §9, session 12); noise only ever adds time.
runs="${RUNS:-3}"
bsec=""
for run in $(seq 1 "$runs"); do
    bench_start_daemon "$BENCH_DIR/batch$run.db" /dev/null "$BENCH_DIR/d2.err" --notifier none --tz UTC
    s=$(timed "$SCHEDD" push "$BENCH_DIR/rows.ndjson" --bus "$BUS_ADDR")
    bench_stop_daemon
    bstored=$(sqlite3 "$BENCH_DIR/batch$run.db" 'SELECT count(*) FROM schedules')
    [ "$bstored" = "$count" ] || { echo "batch run $run stored $bstored of $count rows"; exit 1; }
    echo "batch: run $run: $s s"
    if [ -z "$bsec" ] || [ "$(echo "$s < $bsec" | bc)" = 1 ]; then bsec=$s; fi
done
batch_rate=$(echo "scale=1; $count / $bsec" | bc)
echo "batch: schedd push NDJSON, $bstored rows stored, best of $runs: $bsec s = $batch_rate/s (whole CLI process)"

# The same schema: let the daemon create it, then insert the rows raw.
for db in rawN $(seq -f "raw1_%g" 1 "$runs"); do
    bench_start_daemon "$BENCH_DIR/$db.db" /dev/null "$BENCH_DIR/d3.err" --notifier none --tz UTC
    bench_stop_daemon
done
read -r raw1 rawN < <("$PY" - "$BENCH_DIR" "$BENCH_DIR/rows.ndjson" "$runs" <<'EOF'
import datetime, hashlib, json, sqlite3, sys, time
d, path, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
now = int(time.time() * 1e6)
rows = []
for line in open(path):
    l = json.loads(line)["bk"]["local"]
    due = int(datetime.datetime.fromisoformat(l["at"].replace("Z", "+00:00")).timestamp() * 1e6)
    data = json.dumps(l["data"], separators=(",", ":"))
    fp = json.dumps({"at": l["at"], "body": l["body"], "data": l["data"], "id": l["id"], "title": l["title"]},
                    separators=(",", ":"), sort_keys=True)
    # Schema 6 (docs/store.md): the app as its number, the digest as 32 bytes (computed before the clock).
    rows.append((l["id"], due, hashlib.sha256(fp.encode()).digest(), l["title"], l["body"], data))
sql = ("INSERT INTO schedules(app, id, next_due, kind, digest, title, body, data) "
       "VALUES(1, ?1, ?2, 0, ?3, ?4, ?5, ?6)")
# The rows' totals go into pending_counts once per transaction, as the daemon's store writes them (issue 35:
# PendingCounts holds them; once per row before): StoreRowCoding.storedBytes of a one-shot at a UTC instant,
# 64 + the UTF-8 bytes of its texts. One transaction per row: one upsert per row, as the daemon's.
counts_sql = ("INSERT INTO pending_counts(app, n, bytes) VALUES (1, ?1, ?2) "
              "ON CONFLICT(app) DO UPDATE SET n = n + excluded.n, bytes = bytes + excluded.bytes")
sizes = [(64 + sum(len((x or "").encode()) for x in (r[0], r[3], r[4], r[5])),) for r in rows]
def conn(name):
    c = sqlite3.connect(d + "/" + name, isolation_level=None)
    c.execute("PRAGMA journal_mode = WAL"); c.execute("PRAGMA synchronous = FULL")
    c.execute("INSERT OR IGNORE INTO apps(n, name) VALUES(1, 'org.schedd.Default')")
    return c
one = None
for run in range(1, runs + 1):  # best of `runs`, each into a fresh database (as the NDJSON load above)
    c = conn("raw1_%d.db" % run)
    t = time.monotonic()
    c.execute("BEGIN IMMEDIATE"); c.executemany(sql, rows)
    c.execute(counts_sql, (len(rows), sum(s[0] for s in sizes))); c.execute("COMMIT")
    took = time.monotonic() - t
    one = took if one is None else min(one, took)
c = conn("rawN.db")
t = time.monotonic()
for r, size in zip(rows, sizes):
    c.execute("BEGIN IMMEDIATE"); c.execute(sql, r); c.execute(counts_sql, (1, size[0])); c.execute("COMMIT")
each = time.monotonic() - t
print("%.1f %.1f" % (len(rows) / one, len(rows) / each))
EOF
)
echo "raw sqlite3: one transaction $raw1 rows/s; one transaction per row $rawN rows/s"
result "pushrate_dbus_${nclients}clients" "$dbus_rate" "$raw1" pushes/s higher
result pushrate_batch_ndjson "$batch_rate" "$raw1" pushes/s higher
result "pushrate_dbus_${nclients}clients_vs_raw_commit_per_row" "$dbus_rate" "$rawN" pushes/s higher
# The ceiling of N closed-loop clients (issue 35 item 3): each waits for its answer, so one client makes at
# most 1 / (RTT + t_row) durable pushes a second even with a daemon that costs nothing — RTT the same
# clients' ClockShow round trip (N / ClockShow rate), t_row raw sqlite3's one-row transaction (1 / rawN).
# Ceiling = N / (RTT + t_row) pushes/s = N·t_row / (RTT + t_row) × raw per row.
read -r rtt_us trow_us ceiling ceiling_x < <(echo "$nclients $show_rate $rawN" | awk '{
    rtt = $1 / $2; trow = 1 / $3; c = $1 / (rtt + trow);
    printf "%.1f %.1f %.1f %.3f\n", rtt * 1e6, trow * 1e6, c, c / $3 }')
echo "ceiling: $nclients clients, RTT ${rtt_us} us (ClockShow), t_row ${trow_us} us (raw one row per transaction):" \
     "$ceiling pushes/s = ${ceiling_x}x raw per row; ours $dbus_rate/s = $(echo "scale=3; $dbus_rate / $rawN" | bc)x raw per row"
result "pushrate_dbus_${nclients}clients_of_ceiling" "$dbus_rate" "$ceiling" pushes/s higher
