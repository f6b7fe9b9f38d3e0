"""workers/suspects.py on a real Redis: a page whose deliveries kept dying waits until only
suspects are left of its crawl, is then read alone (one suspect at a time), and is dropped
only when it dies once more alone."""
from __future__ import annotations

import json
import time

from workers import suspects
from workers.fetch import patience
from workers.state import Keys


def _crawl(rt, inflight: list[str], queued: list[str] = ()) -> str:
    cid = rt.state.create_crawl(f"http://suspects-{time.monotonic_ns()}.test/", None, {})
    k = Keys(cid)
    now = time.time()
    for u in inflight:
        rt.state.r.hset(k.inflight, u, now)
    for u in queued:
        rt.state.r.zadd(k.frontier, {u: 1.0})
    return cid


def _due(rt, cid: str) -> set[str]:
    return {u for c, u in (json.loads(m) for m in rt.state.r.zrange(patience.DELAYED, 0, -1)) if c == cid}


def test_a_suspect_waits_while_other_pages_of_its_crawl_are_queued_or_in_flight(rt):
    cid = _crawl(rt, ["http://x.test/a", "http://x.test/b"], queued=["http://x.test/c"])
    k = Keys(cid)
    assert suspects.verdict(rt, cid, "http://x.test/a") == "wait"
    assert "http://x.test/a" in _due(rt, cid)  # back by the pacer, still in flight: the crawl cannot end
    assert rt.state.r.hexists(k.inflight, "http://x.test/a")
    rt.state.r.zrem(k.frontier, "http://x.test/c")
    assert suspects.verdict(rt, cid, "http://x.test/a") == "wait"  # b is still in flight
    rt.state.r.hdel(k.inflight, "http://x.test/b")
    assert suspects.verdict(rt, cid, "http://x.test/a") == "alone"


def test_suspects_are_read_one_at_a_time_and_one_that_dies_alone_is_dropped(rt):
    a, b = "http://x.test/a", "http://x.test/b"
    cid = _crawl(rt, [a, b])
    assert suspects.verdict(rt, cid, a) == "wait"  # b is not yet known for a suspect
    assert suspects.verdict(rt, cid, b) == "alone"  # only suspects are left: b takes the turn
    assert suspects.verdict(rt, cid, a) == "wait"  # ... and a waits for it
    # b's worker died while b was read alone: b delivered again is poison
    assert suspects.verdict(rt, cid, b) == "drop"
    suspects.release(rt, cid, b)
    rt.state.r.hdel(Keys(cid).inflight, b)
    assert suspects.verdict(rt, cid, a) == "alone"
    suspects.release(rt, cid, a)  # read, and ended: the turn is free
    assert rt.state.r.get(f"{Keys(cid).crawl}:alone") is None


def test_a_turn_held_by_a_killed_reader_is_its_own_next_delivery(rt):
    """Killed between taking the turn and counting it: the same page takes the turn again."""
    a = "http://x.test/a"
    cid = _crawl(rt, [a])
    rt.state.r.set(f"{Keys(cid).crawl}:alone", a)
    rt.state.r.hset(f"{Keys(cid).crawl}:suspects", a, 0)
    assert suspects.verdict(rt, cid, a) == "alone"
