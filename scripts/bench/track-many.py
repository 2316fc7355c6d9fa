"""Track over N schedules against a daemon (``schedd testbed``), with another client's ClockShow
probed every 20 ms from before the Track until its cancellation job is done (issue 20 item 3).

    /usr/bin/python3 scripts/bench/track-many.py clients/python N .build/release/schedd

Loads N schedules naming the event ``big`` (all due at one instant, so the job reaches the last one
loaded last) with PushBatch calls of 10,000, then times one Track and waits for the job by the
history (its newest record is the last schedule's `cancelled`). Prints ``RESULT`` lines: the answer's
time and count/listed/more, the job's duration and the ClockShow latencies during the answer and
during the job (max, p99, p50).
"""
import sys, threading, time
sys.path.insert(0, sys.argv[1])
from schedd import Testbed
N = int(sys.argv[2])
page = 10_000
last = "run_%d:%d" % ((N - 1) // page, N - 1)
with Testbed(fake_clock="2026-03-08T05:00:00Z", binary=sys.argv[3]) as tb:
    c = tb.client
    t0 = time.time()
    for start in range(0, N, page):
        texts = ['{"bk":{"local":{"id":"run_%d:%d","at":"2026-03-09T06:00:00Z","title":"T","cancelOn":["big"]}}}' % (start // page, i)
                 for i in range(start, min(N, start + page))]
        c.push_batch(texts)
    load = time.time() - t0
    other = tb.client_for("org.example.Other")
    probes = []  # (sent, latency)
    stop = False
    def probe():
        while not stop:
            s = time.time(); other.call("ClockShow", ""); probes.append((s, time.time() - s)); time.sleep(0.02)
    th = threading.Thread(target=probe); th.start()
    time.sleep(0.3)
    t1 = time.time()
    r = c.track("big")
    t2 = time.time()
    watcher = tb.client_for("org.schedd.Default")
    while True:
        text, _ = watcher.call("HistoryPage", "tu", 0, 1)
        if ('"id":"%s"' % last) in text:
            break
        time.sleep(0.05)
    t3 = time.time()
    stop = True; th.join()
    def stats(xs):
        xs = sorted(xs)
        if not xs:
            return "none"
        return "max=%.1f p99=%.1f p50=%.1f n=%d" % (xs[-1] * 1e3, xs[min(len(xs) - 1, int(len(xs) * 0.99))] * 1e3,
                                                    xs[len(xs) // 2] * 1e3, len(xs))
    during_answer = [l for s, l in probes if s < t2 and s + l > t1]
    during_job = [l for s, l in probes if s >= t2 and s < t3]
    print("RESULT N=%d load_s=%.1f load_per_s=%.0f" % (N, load, N / load))
    print("RESULT track_answer_s=%.3f count=%d listed=%d more=%s" % (t2 - t1, r.total, len(r), r.more))
    print("RESULT job_s=%.1f (after the answer, until the last schedule's history record)" % (t3 - t2))
    print("RESULT clockshow_ms_during_answer %s" % stats(during_answer))
    print("RESULT clockshow_ms_during_job %s" % stats(during_job))
