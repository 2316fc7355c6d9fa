"""Track over N schedules against a daemon (``schedd testbed``), with another client's ClockShow
probed every 50 ms meanwhile (issue 20 item 3).

    python3 scripts/bench/track-many.py clients/python N .build/release/schedd

Loads N schedules naming the event ``big`` with PushBatch calls of 10,000, then times one Track and
prints the answer's count/listed/more and the probes' worst and median latency.
"""
import json, sys, threading, time
sys.path.insert(0, sys.argv[1])
from schedd import Testbed
N = int(sys.argv[2])
with Testbed(fake_clock="2026-03-08T05:00:00Z", binary=sys.argv[3]) as tb:
    c = tb.client
    t0 = time.time()
    page = 10_000
    for start in range(0, N, page):
        texts = ['{"bk":{"local":{"id":"run_%d:%d","at":"2026-03-09T06:00:00Z","title":"T","cancelOn":["big"]}}}' % (start // page, i)
                 for i in range(start, min(N, start + page))]
        c.push_batch(texts)
    load = time.time() - t0
    other = tb.client_for("org.example.Other")
    lat = []
    stop = False
    def probe():
        while not stop:
            s = time.time(); other.call("ClockShow", ""); lat.append(time.time() - s); time.sleep(0.05)
    th = threading.Thread(target=probe); th.start()
    time.sleep(0.3)
    t1 = time.time()
    r = c.track("big")
    tr = time.time() - t1
    time.sleep(0.3); stop = True; th.join()
    print("N=%d load %.1f s (%.0f/s); track %.2f s total=%d listed=%d more=%s; ClockShow max %.3f s p50 %.4f s over %d probes"
          % (N, load, N / load, tr, r.total, len(r), r.more, max(lat), sorted(lat)[len(lat) // 2], len(lat)))
