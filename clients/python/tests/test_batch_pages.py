"""The Python client's batch splitter at the edges of the daemon's PushBatch caps (no daemon needed)."""

from schedd import MAX_BATCH_BYTES, MAX_BATCH_ENTRIES, batch_pages


def covers(pages, n):
    return [i for page in pages for i in page] == list(range(n))


def test_at_and_over_the_entry_cap():
    assert batch_pages([1] * MAX_BATCH_ENTRIES) == [range(0, MAX_BATCH_ENTRIES)]
    pages = batch_pages([1] * (MAX_BATCH_ENTRIES + 1))
    assert pages == [range(0, MAX_BATCH_ENTRIES), range(MAX_BATCH_ENTRIES, MAX_BATCH_ENTRIES + 1)]
    assert covers(batch_pages([1] * 25_001), 25_001)


def test_at_and_over_the_byte_cap():
    half = MAX_BATCH_BYTES // 2
    assert batch_pages([half, half]) == [range(0, 2)]                 # exactly 8 MiB: one call
    assert batch_pages([half, half, 1]) == [range(0, 2), range(2, 3)]  # one byte over: two
    assert batch_pages([half, half + 1]) == [range(0, 1), range(1, 2)]


def test_an_oversized_push_goes_alone_and_nothing_is_lost():
    assert batch_pages([10, MAX_BATCH_BYTES + 5, 10]) == [range(0, 1), range(1, 2), range(2, 3)]
    assert batch_pages([]) == []
    sizes = [(i * 7919) % 70_000 for i in range(30_000)]
    pages = batch_pages(sizes)
    assert covers(pages, len(sizes))
    assert all(len(p) <= MAX_BATCH_ENTRIES and (len(p) == 1 or sum(sizes[i] for i in p) <= MAX_BATCH_BYTES)
               for p in pages)
