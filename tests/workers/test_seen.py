"""A process's memory of URLs queued (workers/seen.py) and what a page costs Redis (issue 33),
on a real redis-server: commands counted by the server's own INFO commandstats."""
from __future__ import annotations

from tests.workers.own_state import calls_delta as _delta, command_calls as _calls, own_state as _state, running_crawl as _crawl
from workers.state import Keys


def test_a_pages_links_cost_a_few_commands_whatever_their_number(quiet_redis):
    """200 links of which 100 new: one SMISMEMBER, one SADD, one ZADD (not a SADD each), the
    page done with one more SADD; the next page's same 200 links are not sent at all."""
    st = _state(quiet_redis)
    o = "http://seen-test-1.example"
    cid = _crawl(st, o + "/")
    st.enqueue(cid, {f"{o}/old/{i}": 1.0 for i in range(100)} | {o + "/": 2e6, o + "/page/2/": 1.0})
    home, *_ = st.dispatch(cid, 2, 1000)
    links = {f"{o}/old/{i}": 3.0 for i in range(100)} | {f"{o}/new/{i}": 3.0 for i in range(100)}
    before = _calls(st.r)
    got = st.end_page(cid, home, estimates=links, tie=1e-9, sample=4, hand_out=(2, 1000))
    calls = _delta(before, _calls(st.r))
    assert got["queued"] == 100
    assert calls["SMISMEMBER"] == 1 and calls["ZADD"] == 1 and calls["SADD"] == 2, calls  # seen, done
    assert sum(calls.values()) <= 16, calls
    # the frontier took the new ones, in discovery order among equals
    k = Keys(cid)
    assert st.r.zscore(k.frontier, f"{o}/new/1") > st.r.zscore(k.frontier, f"{o}/new/99")
    assert st.r.hget(k.crawl, "sequence") == "100"

    page2 = next(u for u in st.dispatch(cid, 8, 1000))
    before = _calls(st.r)
    got = st.end_page(cid, page2, estimates=links, tie=1e-9, hand_out=(8, 1000))
    calls = _delta(before, _calls(st.r))
    assert got["queued"] == 0 and "SMISMEMBER" not in calls and "ZADD" not in calls, calls


def test_what_a_process_knows_queued_is_forgotten_when_it_connects_again(quiet_redis):
    """A reconnect may follow a Redis that lost its last writes: a page's links that the
    process's memory left out are sent after all, and the script, which decides, queues those
    Redis does not hold."""
    st = _state(quiet_redis)
    o = "http://seen-test-2.example"
    cid = _crawl(st, o + "/")
    k = Keys(cid)
    st.enqueue(cid, {o + "/": 2e6, o + "/page/2/": 1.0})
    home, page2 = st.dispatch(cid, 8, 100)
    assert st.end_page(cid, home, estimates={o + "/a": 1.0, o + "/b": 1.0})["queued"] == 2
    assert st.seen_cache.unknown(cid, [o + "/a", o + "/c"]) == [o + "/c"]
    st.r.srem(k.seen, o + "/a")  # as if Redis lost that write...
    st.r.zrem(k.frontier, o + "/a")
    st.r.connection_pool.disconnect()  # ...which it can only do across a new connection
    assert st.end_page(cid, page2, estimates={o + "/a": 1.0, o + "/b": 1.0})["queued"] == 1
    assert st.r.zscore(k.frontier, o + "/a") == 1.0
    assert st.seen_cache.unknown(cid, [o + "/a", o + "/b"]) == []  # known again


def test_a_note_taken_across_a_reconnect_is_dropped(quiet_redis):
    st = _state(quiet_redis)
    cache = st.seen_cache
    epoch = cache.epoch
    st.r.connection_pool.disconnect()
    st.r.ping()
    cache.note("c-1", ["u"], epoch)
    assert cache.unknown("c-1", ["u"]) == ["u"]
    cache.note("c-1", ["u"], cache.epoch)
    assert cache.unknown("c-1", ["u"]) == []


def test_unseen_asks_redis_only_for_what_the_process_does_not_know(quiet_redis):
    st = _state(quiet_redis)
    o = "http://seen-test-3.example"
    cid = _crawl(st, o + "/")
    other = _state(quiet_redis)  # another worker queued /a
    other.enqueue(cid, {o + "/a": 1.0})
    assert st.unseen(cid, [o + "/a", o + "/b"]) == [o + "/b"]
    before = _calls(st.r)
    assert st.unseen(cid, [o + "/a"]) == []  # known now: no command
    assert "SMISMEMBER" not in _delta(before, _calls(st.r))


def test_records_are_kept_compressed_and_read_back_whole(quiet_redis):
    """The records hash holds zlib-compressed JSON (about 3x smaller for prose), the stream
    plain JSON; a record stored as plain JSON (before issue 33) still reads."""
    import json

    from workers.state import STREAM, Saving

    st = _state(quiet_redis)
    o = "http://seen-test-4.example"
    cid = _crawl(st, o + "/")
    text = " ".join(f"word{i % 50} of a post, said plainly" for i in range(400))
    rec = {"url": o + "/p/1", "title": "Título", "content_text": text, "content_html": f"<p>{text}</p>"}
    [url] = (st.enqueue(cid, {o + "/p/1": 1e6}), st.dispatch(cid, 8, 100))[1]
    assert st.end_page(cid, url, save=Saving(rec, "d1", 1000, body="b1"))["saved"]
    raw = st.raw.hget(Keys(cid).records, o + "/p/1")
    plain = json.dumps(rec, ensure_ascii=False).encode()
    assert len(raw) * 3 < len(plain)
    assert st.record(cid, o + "/p/1") == rec and st.crawl_records(cid) == [rec]
    [(_, fields)] = [e for e in st.r.xrange(STREAM) if e[1]["crawl"] == cid]
    assert json.loads(fields["record"]) == rec  # the stream's consumers read JSON as before
    st.r.hset(Keys(cid).records, o + "/p/1", json.dumps(rec))  # an old record
    assert st.record(cid, o + "/p/1") == rec


def test_a_page_with_thousands_of_links_queues_them_all(quiet_redis):
    """Past Lua's limit on unpacked values (8,000): the links go in chunks."""
    st = _state(quiet_redis)
    o = "http://seen-test-5.example"
    cid = _crawl(st, o + "/")
    st.enqueue(cid, {o + "/": 2e6})
    [home] = st.dispatch(cid, 8, 100_000)
    posts = {f"{o}/p/{i}": 1e6 for i in range(5000)}
    estimates = {f"{o}/t/{i}": 2.0 for i in range(5000)}
    got = st.end_page(cid, home, posts=posts, estimates=estimates, tie=1e-9, seen=[f"{o}/r/{i}" for i in range(9000)])
    assert got["queued"] == 10_000
    k = Keys(cid)
    assert st.r.zcard(k.frontier) == 10_000 and st.r.scard(k.seen) == 1 + 10_000 + 9000
