"""The Redis state on a real redis-server: frontier, dispatch, finish, politeness, records."""
from __future__ import annotations

import json
import time

from workers.records import as_before
from workers.state import Keys, State, blog_id


def _crawl(state: State, url: str, **options) -> str:
    cid = state.create_crawl(url, None, options)
    state.set_state(cid, "running")
    return cid


def test_keys_of_a_crawl_share_one_hash_tag():
    k = Keys("abcdef123456-0123456789")
    tags = {key[key.index("{"):key.index("}") + 1] for key in k.all_crawl_keys() + [k.blog, k.records]}
    assert tags == {"{abcdef123456}"}


def test_blog_id_folds_www_and_trailing_slash():
    assert blog_id("https://www.Example.org/blog/") == blog_id("http://example.org/blog")
    assert blog_id("http://example.org/a") != blog_id("http://example.org/b")
    assert blog_id("http://127.0.0.1:8001/") != blog_id("http://127.0.0.1:8002/")


def test_create_is_idempotent_and_active_crawl_is_found(state):
    url = "http://state-test-1.example/"
    cid = state.create_crawl(url, None, {"max_pages": 5})
    assert state.create_crawl(url, None, {}, crawl_id=cid) == cid
    assert state.options(cid) == {"max_pages": 5}
    assert state.active_crawl(url) == cid
    state.set_state(cid, "done")
    assert state.active_crawl(url) is None


def test_enqueue_dedups_and_dispatch_respects_priority_and_parallelism(state):
    cid = _crawl(state, "http://state-test-2.example/")
    assert state.enqueue(cid, {"a": 1.0, "b": 5.0, "c": 3.0}) == 3
    assert state.enqueue(cid, {"a": 9.0, "d": 0.5}) == 1  # a was seen already
    assert state.dispatch(cid, parallelism=2, max_pages=100) == ["b", "c"]
    assert state.dispatch(cid, parallelism=2, max_pages=100) == []  # two in flight already
    state.mark_done(cid, "b")
    assert state.dispatch(cid, parallelism=2, max_pages=100) == ["a"]
    assert not state.maybe_finish(cid, 100)  # still in flight and queued


def test_finish_only_when_nothing_queued_or_in_flight(state):
    cid = _crawl(state, "http://state-test-3.example/")
    state.enqueue(cid, {"x": 1.0})
    [u] = state.dispatch(cid, 4, 100)
    assert not state.maybe_finish(cid, 100)
    state.mark_done(cid, u)
    assert state.maybe_finish(cid, 100)
    assert state.state_of(cid) == "done"
    assert state.dispatch(cid, 4, 100) == []  # a finished crawl hands out nothing


def test_an_ended_crawl_keeps_its_report_and_output_and_lets_its_working_keys_expire(state, redis_client):
    cid = _crawl(state, "http://state-test-9.example/")
    k = Keys(cid)
    state.enqueue(cid, {"x": 1.0, "y": 2.0})
    state.cache_page(cid, "x", {"url": "x", "html": "<p>x</p>"})
    for u in state.dispatch(cid, 4, 100):
        state.page_context(cid, u)
        state.mark_done(cid, u, counted=True)
    redis_client.sadd(k.posts, "x")
    assert all(redis_client.ttl(key) == -1 for key in k.working() if redis_client.exists(key))
    assert state.maybe_finish(cid, 100)
    ttls = {key: redis_client.ttl(key) for key in k.working() if redis_client.exists(key)}
    assert {k.seen, k.done, f"{k.crawl}:attempts"} <= set(ttls)
    assert not redis_client.exists(k.pages, k.entries)  # the learning cache goes at once
    assert all(0 < t <= state.finished_ttl for t in ttls.values())
    assert redis_client.ttl(k.crawl) == -1 and redis_client.ttl(k.posts) == -1  # report, output
    redis_client.delete(*k.working())  # as their expiry will
    info = state.crawl_info(cid)
    assert (info["state"], info["seen"], info["pages"], info["posts"]) == ("done", 2, 2, 1)


def test_a_failed_crawl_lets_its_working_keys_expire_too(state, redis_client):
    cid = _crawl(state, "http://state-test-10.example/")
    state.enqueue(cid, {"x": 1.0})
    state.save_entries(cid, [{"url": "x", "title": "t"}])
    state.set_state(cid, "failed", "no feed")
    assert 0 < redis_client.ttl(Keys(cid).seen) <= state.finished_ttl
    assert not redis_client.exists(Keys(cid).entries)
    assert state.crawl_info(cid)["seen"] == 1


def test_last_finished_is_found_among_many_other_blogs_crawls(state):
    url = "http://state-test-11.example/"
    cid = _crawl(state, url)
    state.set_state(cid, "done")
    for i in range(2100):  # newer crawls of other blogs, more than any window over all crawls
        state.create_crawl(f"http://other-{i}.example/", None, {})
    assert state.last_finished(url) is not None
    assert state.last_finished("http://state-test-12.example/") is None


def test_samples_count_on_past_the_list_cap(state):
    from workers.state import MAX_SAMPLES

    cid = _crawl(state, "http://state-test-13.example/")
    for i in range(MAX_SAMPLES + 3):
        n = state.add_sample(cid, f"http://state-test-13.example/page/{i}/", i % 7)
    assert n == state.sampled(cid) == MAX_SAMPLES + 3  # the model is refitted on this count
    kept = state.samples(cid)
    assert len(kept) == MAX_SAMPLES and kept[-1][0].endswith(f"/page/{MAX_SAMPLES + 2}/")


def test_samples_written_by_page_ends_count_on_past_the_list_cap(state, monkeypatch):
    """A page's end writes no count of its own below the cap (the list's length is the count),
    and counts on past it, mixed with the model's own `add_sample`s."""
    from workers import state as state_module

    monkeypatch.setattr(state_module, "MAX_SAMPLES", 5)
    cid = _crawl(state, "http://state-test-14.example/")
    o = "http://state-test-14.example"
    got = [state.end_page(cid, f"{o}/page/{i}/", sample=i)["sampled"] for i in range(4)]
    assert got == [1, 2, 3, 4] and state.sampled(cid) == 4
    assert state.add_sample(cid, o + "/x/", 1) == 5
    got += [state.end_page(cid, f"{o}/page/{i}/", sample=i)["sampled"] for i in range(4, 7)]
    assert got[4:] == [6, 7, 8] and state.sampled(cid) == 8 and len(state.samples(cid)) == 5
    assert state.add_sample(cid, o + "/y/", 1) == 9 and State(state.r).sampled(cid) == 9


def test_page_ends_keep_the_in_flight_count_and_count_again_where_it_may_be_wrong(state, redis_client):
    """The room a page's end hands out in comes from the in-flight count the crawl hash keeps
    (no HLEN a page, issue 33); a page taken out of flight by another step drops the count, and
    the next end counts the in-flight hash again: the parallelism holds either way."""
    cid = _crawl(state, "http://state-test-15.example/")
    o = "http://state-test-15.example"
    k = Keys(cid)
    state.enqueue(cid, {f"{o}/p/{i}": float(100 - i) for i in range(10)})
    first = state.dispatch(cid, 3, 100)
    assert len(first) == 3 and redis_client.hget(k.crawl, "in_flight") == "3"
    handed = state.end_page(cid, first[0], hand_out=(3, 100))["handed"]
    assert len(handed) == 1 and redis_client.hlen(k.inflight) == 3 and redis_client.hget(k.crawl, "in_flight") == "3"
    state.mark_done(cid, first[1])  # out of flight without a page's end
    assert redis_client.hget(k.crawl, "in_flight") is None and redis_client.hlen(k.inflight) == 2
    handed = state.end_page(cid, first[2], hand_out=(3, 100))["handed"]
    assert len(handed) == 2 and redis_client.hlen(k.inflight) == 3 and redis_client.hget(k.crawl, "in_flight") == "3"
    redis_client.hset(k.crawl, "in_flight", 7)  # a count too high (a crawl of an older version, say)
    in_flight = redis_client.hkeys(k.inflight)
    handed = state.end_page(cid, in_flight[0], hand_out=(3, 100))["handed"]
    assert len(handed) == 1 and redis_client.hlen(k.inflight) == 3 and redis_client.hget(k.crawl, "in_flight") == "3"


def test_page_budget_stops_dispatch_and_finishes(state):
    cid = _crawl(state, "http://state-test-4.example/")
    state.enqueue(cid, {f"u{i}": float(i) for i in range(10)})
    handed = state.dispatch(cid, 100, max_pages=3)
    assert len(handed) == 3
    for u in handed:
        state.mark_done(cid, u)
    assert state.maybe_finish(cid, 3)


def test_stale_in_flight_pages_are_found(state):
    cid = _crawl(state, "http://state-test-5.example/")
    state.enqueue(cid, {"p": 1.0, "q": 2.0})
    state.dispatch(cid, 4, 100)
    assert state.stale_inflight(cid, older_than=3600) == []
    assert sorted(state.stale_inflight(cid, older_than=-1)) == ["p", "q"]


def _streamed(redis_client, cid: str) -> int:
    """Entries of crawl `cid` in the records stream, which every crawl shares: the session's
    workers stream other tests' records meanwhile (a count of the whole stream failed now and then)."""
    return sum(1 for _, f in redis_client.xrange("bh:records") if f.get("crawl") == cid)


def test_records_stream_only_when_changed(state, redis_client):
    cid = _crawl(state, "http://state-test-6.example/")
    rec = {"url": "http://state-test-6.example/p/1", "title": "T"}
    assert state.save_record(cid, rec, "h1", 1000)
    assert not state.save_record(cid, rec, "h1", 1000)
    assert state.save_record(cid, dict(rec, title="T2"), "h2", 1000)
    assert _streamed(redis_client, cid) == 2
    assert [r["title"] for r in state.crawl_records(cid)] == ["T2"]
    assert state.crawl_info(cid)["posts"] == 1


def test_a_record_saved_by_two_deliveries_at_once_is_streamed_once(state, redis_client):
    """A page reclaimed from a worker thought dead runs twice at once: one stream entry, one
    counted find, whatever the interleaving (the save is one step in Redis)."""
    import threading

    import redis

    cid = _crawl(state, "http://state-test-10.example/")
    rec = {"url": "http://state-test-10.example/p/1", "title": "T"}
    start = threading.Barrier(16)
    streamed = []

    def save():
        st = State(redis.Redis.from_url(_url(redis_client), decode_responses=True))  # a worker's own client
        start.wait()
        streamed.append(st.save_record(cid, rec, "h1", 1000, source="feed"))

    threads = [threading.Thread(target=save) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert streamed.count(True) == 1 and _streamed(redis_client, cid) == 1
    assert state.crawl_info(cid)["sources"]["feed"] == 1


def _url(client) -> str:
    kw = client.connection_pool.connection_kwargs
    return f"redis://{kw['host']}:{kw['port']}/{kw.get('db', 0)}"


def test_error_report_counts(state):
    cid = _crawl(state, "http://state-test-7.example/")
    state.add_error(cid, "http://x/1", "http_status", "404 Not Found")
    state.add_error(cid, "http://x/2", "timeout", "no answer in 30 s")
    assert state.crawl_info(cid)["errors"] == 2
    assert [e["kind"] for e in state.errors(cid)] == ["http_status", "timeout"]


def test_list_crawls_pages_through_every_crawl(state, redis_client):
    from workers.state import CRAWLS

    redis_client.delete(CRAWLS)
    redis_client.zadd(CRAWLS, {f"c{i:05d}": i for i in range(1203)})
    every = list(state.list_crawls(page=500))
    assert len(every) == 1203 and every[0] == "c01202" and every[-1] == "c00000"
    assert list(state.list_crawls(20, page=7)) == every[:20]
    assert list(state.list_crawls(1000, page=500)) == every[:1000]


def test_phases_warnings_and_announced_counts_reach_crawl_info(state):
    cid = state.create_crawl("http://phases.test/", None, {})
    state.set_phase(cid, "discover")
    state.set_phase(cid, "traverse")
    first = state.crawl_info(cid)["phase_started"]["traverse"]
    state.set_phase(cid, "traverse")  # a phase begins once
    assert state.warn(cid, "no-browser", "off") and not state.warn(cid, "no-browser", "off again")
    state.announce(cid, "archive widget", 31)
    info = state.crawl_info(cid)
    assert info["phase"] == "traverse" and info["phase_started"]["traverse"] == first
    assert set(info["phase_started"]) == {"discover", "traverse"}
    assert info["warnings"] == {"no-browser": "off"} and info["announced"] == {"archive widget": 31}


def test_a_crawl_ending_wakes_whoever_waits_for_it(state):
    """The follower waits on `wait_ended` between looks: it returns at once when the crawl
    ends (done by the last page, or failed), not after its timeout, and not before."""
    import threading

    cid = _crawl(state, "http://state-test-wake.example/")
    assert not state.wait_ended(cid, 0.05)  # running: the wait runs out
    woke = []
    waiter = threading.Thread(target=lambda: woke.append((state.wait_ended(cid, 30), time.monotonic())))
    waiter.start()
    ended_at = time.monotonic()
    state.enqueue(cid, {"http://state-test-wake.example/p": 1.0})
    [url] = state.dispatch(cid, 10, 100)
    state.mark_done(cid, url, counted=True)
    assert state.maybe_finish(cid, 100)
    waiter.join(30)
    assert woke and woke[0][0] is True and woke[0][1] - ended_at < 10
    other = _crawl(state, "http://state-test-wake-2.example/")
    state.set_state(other, "failed", "no pages")
    assert state.wait_ended(other, 5)


# ------------------------------------------------------------------ the end of a page, one step (issue 22)

def test_a_page_ends_in_one_step_and_two_deliveries_stream_its_record_once(state, redis_client):
    """State.end_page: record saved and streamed, links queued, page done and counted, the next
    pages handed out; a page delivered 8 times at once (a reclaimed page) is written once: its
    record streamed once, the page counted once, its links queued once."""
    import threading

    import redis

    from workers.state import Saving

    cid = _crawl(state, "http://state-test-20.example/")
    o = "http://state-test-20.example"
    state.enqueue(cid, {o + "/p/1": 1e6})
    assert state.dispatch(cid, 8, 100) == [o + "/p/1"]
    rec = {"url": o + "/p/1", "title": "T", "content_text": "body"}
    start, ends = threading.Barrier(8), []

    def end():
        st = State(redis.Redis.from_url(_url(redis_client), decode_responses=True))  # a worker's own client
        start.wait()
        ends.append(st.end_page(cid, o + "/p/1", posts={o + "/p/2": 1e6}, estimates={o + "/page/2/": 3.0}, tie=1e-9,
                                save=Saving(rec, "h1", 1000, source="feed", body="t|body"), hand_out=(8, 100)))

    threads = [threading.Thread(target=end) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [e["saved"] for e in ends].count(True) == 1 and _streamed(redis_client, cid) == 1
    assert [e["saved"] for e in ends].count(None) == 7  # the others found the page done: nothing written
    assert sorted(u for e in ends for u in e["handed"]) == [o + "/p/2", o + "/page/2/"]  # each handed out once
    assert sum(e["queued"] for e in ends) == 2 and not any(e["finished"] for e in ends)
    info = state.crawl_info(cid)
    assert info["posts"] == 1 and info["sources"]["feed"] == 1 and info["pages"] == 1 and info["in_flight"] == 2
    assert redis_client.sismember(Keys(cid).done, o + "/p/1")
    assert [r["title"] for r in state.crawl_records(cid)] == ["T"]


def test_pages_left_and_sub_pages_read_are_seen_off_the_frontier_and_counted_once(state, redis_client):
    """State.end_page's `left` and `read`: an image page queued before by another page is taken
    off the frontier, one new to the crawl is only marked seen; each is counted once in the crawl
    hash, however many pages leave it; a sub-page read with the page is never queued."""
    cid = _crawl(state, "http://state-test-23.example/")
    o = "http://state-test-23.example"
    k = Keys(cid)
    queued_before, new, sub = o + "/2020/01/p/img-1/", o + "/2020/01/p/img-2/", o + "/2020/01/p/comment-page-1/"
    state.enqueue(cid, {queued_before: 5.0, o + "/other/": 1.0})
    links = {queued_before: 1.0, new: 1.0, sub: 1.0, o + "/page/2/": 2.0}
    state.end_page(cid, o + "/2020/01/p/", estimates=links, read=[sub], left=("skip:image_page", [queued_before, new]))
    assert redis_client.hget(k.crawl, "skip:image_page") == "2"
    assert redis_client.smismember(k.seen, [queued_before, new, sub]) == [1, 1, 1]
    assert set(redis_client.zrange(k.frontier, 0, -1)) == {o + "/other/", o + "/page/2/"}
    # a second page leaving the same ones (not among its links this time) counts nothing more
    state.end_page(cid, o + "/2020/01/q/", estimates={o + "/page/3/": 2.0}, left=("skip:image_page", [new, queued_before]))
    assert redis_client.hget(k.crawl, "skip:image_page") == "2"
    assert set(redis_client.zrange(k.frontier, 0, -1)) == {o + "/other/", o + "/page/2/", o + "/page/3/"}


def test_a_body_another_url_holds_writes_nothing_until_taken_over(state, redis_client):
    from workers.state import Saving

    cid = _crawl(state, "http://state-test-21.example/")
    o = "http://state-test-21.example"
    k = Keys(cid)
    rec = {"url": o + "/?p=7", "title": "T", "content_text": "body"}
    assert state.end_page(cid, o + "/?p=7", save=Saving(rec, "h1", 1000, body="t|body"))["saved"]
    perma = dict(rec, url=o + "/2020/01/t/")
    got = state.end_page(cid, o + "/2020/01/t/", posts={o + "/p/9": 1e6}, sample=3,
                         save=Saving(perma, "h1", 1000, body="t|body"))
    assert got == {"owner": o + "/?p=7"}  # nothing written: not done, no link queued, no sample
    assert not redis_client.sismember(k.done, o + "/2020/01/t/") and not redis_client.sismember(k.seen, o + "/p/9")
    assert state.sampled(cid) == 0 and state.post_count(cid) == 1
    state.take_body(cid, "t|body", o + "/?p=7", o + "/2020/01/t/")
    got = state.end_page(cid, o + "/2020/01/t/", posts={o + "/p/9": 1e6}, sample=3,
                         save=Saving(perma, "h1", 1000, body="t|body"))
    assert got["saved"] and got["sampled"] == 1 and got["queued"] == 1
    assert [r["url"] for r in state.crawl_records(cid)] == [o + "/2020/01/t/"]


def test_the_end_of_the_last_page_finishes_the_crawl(state, redis_client):
    cid = _crawl(state, "http://state-test-22.example/")
    o = "http://state-test-22.example"
    state.enqueue(cid, {o + "/": 2e6})
    [home] = state.dispatch(cid, 8, 100)
    assert state.end_page(cid, home, hand_out=(8, 100)) == {"saved": None, "sampled": None, "queued": 0,
                                                          "handed": [], "finished": True, "cut": 0}
    assert state.state_of(cid) == "done" and state.crawl_info(cid)["seen"] == 1  # retired
    assert state.hand_out(cid, 8, 100) == ([], False)  # an ended crawl hands out nothing and ends once


def test_a_page_done_after_it_was_read_stale_is_not_put_back_in_flight(state):
    """recover/heal read stale pages, then note them handed out again: a page that finished in
    between stays finished (put back in flight, nobody would take it out; the crawl would not end)."""
    cid = _crawl(state, "http://state-test-touch.example/")
    o = "http://state-test-touch.example"
    state.enqueue(cid, {o + "/a": 2.0, o + "/b": 1.0})
    assert sorted(state.dispatch(cid, 8, 100)) == [o + "/a", o + "/b"]
    stale = state.stale_inflight(cid, older_than=-1)
    assert sorted(stale) == [o + "/a", o + "/b"]
    state.mark_done(cid, o + "/a", counted=True)  # its worker was slow, not dead
    assert state.touch_inflight(cid, stale) == [o + "/b"]
    assert state.crawl_info(cid)["in_flight"] == 1
    state.mark_done(cid, o + "/b", counted=True)
    assert state.maybe_finish(cid, 100)


def test_a_page_of_an_ended_crawl_writes_nothing(state, redis_client):
    """A late delivery after the crawl ended (failed, or finished by a sweep) leaves in-flight
    and writes nothing: no page counted, no link queued, no record."""
    from workers.state import Saving

    cid = _crawl(state, "http://state-test-23.example/")
    o = "http://state-test-23.example"
    state.enqueue(cid, {o + "/p/1": 1e6})
    [url] = state.dispatch(cid, 8, 100)
    state.set_state(cid, "failed", "stopped")
    got = state.end_page(cid, url, posts={o + "/p/2": 1e6}, sample=2, hand_out=(8, 100),
                         save=Saving({"url": url, "title": "T", "content_text": "b"}, "h", 1000, body="t|b"))
    assert got == {"saved": None, "sampled": None, "queued": 0, "handed": [], "finished": False, "cut": 0}
    info = state.crawl_info(cid)
    assert info["pages"] == 0 and info["posts"] == 0 and info["in_flight"] == 0
    assert not redis_client.sismember(Keys(cid).seen, o + "/p/2")


def test_a_stale_page_is_sent_again_by_one_sweeper_and_not_when_deferred(state):
    """Two sweepers that both read a page stale: only the first notes it again (and sends it);
    a page deferred to a later time since it was read stale is left to its delay."""
    cid = _crawl(state, "http://state-test-touch-2.example/")
    o = "http://state-test-touch-2.example"
    state.enqueue(cid, {o + "/a": 2.0, o + "/b": 1.0})
    state.dispatch(cid, 8, 100)
    k = Keys(cid)
    state.r.hset(k.inflight, mapping={o + "/a": time.time() - 100, o + "/b": time.time() - 100})
    stale = sorted(state.stale_inflight(cid, older_than=50))
    assert stale == [o + "/a", o + "/b"]
    state.r.hset(k.inflight, o + "/b", time.time() + 600)  # deferred (politeness) after the read
    assert state.touch_inflight(cid, stale, older_than=50) == [o + "/a"]
    assert state.touch_inflight(cid, stale, older_than=50) == []  # the second sweeper: sent already
    assert float(state.r.hget(k.inflight, o + "/b")) > time.time() + 500


def test_the_pages_a_write_handed_out_are_found_again_when_its_reply_is_lost(state, redis_client):
    """Redis runs a page's last write (the next pages handed out) and the connection drops
    before the reply: no message carries those pages. The task's chain finds them by the
    write's hand-out time and sends them, instead of leaving them to the stale sweep."""
    import redis

    from workers.traverse import Chain

    class LosesTheReply(redis.Redis):  # a real connection whose script reply never arrives
        def execute_command(self, *args, **options):
            got = super().execute_command(*args, **options)
            if args[0] == "EVALSHA":
                raise redis.ConnectionError("connection lost while reading the reply")
            return got

    cid = _crawl(state, "http://state-test-lost.example/")
    o = "http://state-test-lost.example"
    state.enqueue(cid, {o + "/": 3.0, o + "/a": 2.0, o + "/b": 1.0})
    [home] = state.dispatch(cid, 1, 100)
    lossy = State(LosesTheReply.from_url(_url(redis_client), decode_responses=True))
    chain = Chain()
    try:
        lossy.end_page(cid, home, hand_out=(2, 100), handed_at=chain.stamp())
    except redis.ConnectionError:
        pass
    else:
        raise AssertionError("the reply was not lost")
    assert chain.handed is None and state.crawl_info(cid)["in_flight"] == 2  # handed out, and nobody knows
    assert sorted(chain.handed_out(state, cid)[0]) == [o + "/a", o + "/b"]
    assert Chain().handed_out(state, cid) is None  # a chain that wrote nothing hands out afresh


def test_the_records_no_listing_lists_become_pages_when_the_crawl_ends(state, redis_client):
    """Issue 30: a full crawl that read its blog to the end turns the records none of the blog's
    listings lists (where they list nearly every other) into pages, said in the record, the
    stream and the report; once, whoever retires the crawl again."""
    home = "http://state-test-unlisted.example/"
    cid = _crawl(state, home)
    posts = [f"{home}2020/01/post-{i}/" for i in range(20)]
    for u in posts + [home + "books/"]:
        state.save_record(cid, {"url": u, "kind": "post", "title": u}, u, 1000)
    redis_client.hset(Keys(cid).inlist, home, json.dumps([[u.rstrip("/") for u in posts]]))  # as a listing links them
    before = _streamed(redis_client, cid)
    state.set_state(cid, "done")
    kinds = {r["url"]: r["kind"] for r in state.crawl_records(cid)}
    assert kinds.pop(home + "books/") == "page" and set(kinds.values()) == {"post"}
    assert "listed by none" in state.record(cid, home + "books/")["kind_note"]
    assert _streamed(redis_client, cid) == before + 1
    assert [e["url"] for e in state.errors(cid) if e["kind"] == "not_a_post"] == [home + "books/"]
    state.retire(cid)  # the sweep retiring it again changes nothing
    assert _streamed(redis_client, cid) == before + 1
    assert not redis_client.exists(Keys(cid).inlist)  # judged once: the slots are not kept
    # an update crawl reads the page again: it stays a page (its listings are not all read then)
    update = state.create_crawl(home, "2020-01-01", {})
    again = as_before({"url": home + "books/", "kind": "post", "title": "books, again"}, state.record(update, home + "books/"))
    state.save_record(update, again, home + "books/", 1000)
    assert state.record(update, home + "books/")["kind"] == "page"
    assert as_before({"url": posts[0], "kind": "post"}, state.record(update, posts[0]))["kind"] == "post"


def test_a_record_copying_a_posts_text_outside_the_post_pattern_becomes_a_page(state, redis_client):
    """Issue 30 (held-out kirkandersen): an archive page holding one entry shows that post's text
    under a URL the post pattern does not take: at the crawl's end it is a page naming the post."""
    home = "http://state-test-copies.example/"
    cid = _crawl(state, home)
    state.save_blog(cid, pattern=r"/2020/01/post-\d+/")
    posts = [f"{home}2020/01/post-{i}/" for i in range(20)]
    for i, u in enumerate(posts):
        state.save_record(cid, {"url": u, "kind": "post", "title": u, "content_text": f"The text of post {i}, long enough to tell."}, u, 1000)
    state.save_record(cid, {"url": home + "photos/", "kind": "post", "title": "Recently in Photos",
                            "content_text": "The text of post 7, long enough to tell."}, home + "photos/", 1000)
    redis_client.hset(Keys(cid).inlist, home, json.dumps([[u for u in posts] + [home + "photos/"]]))
    state.set_state(cid, "done")
    record = state.record(cid, home + "photos/")
    assert record["kind"] == "page" and posts[7] in record["kind_note"]
    assert {r["kind"] for r in state.crawl_records(cid) if r["url"] != home + "photos/"} == {"post"}


def test_a_record_read_under_a_stray_copy_moves_to_the_blogs_own_url_when_the_crawl_ends(state, redis_client):
    """Issue 30 (held-out blogaddict-de's a/170): a mirror's /permalink/ copy of a post was read
    before the post's own /a/ URL, when too few posts were known to tell the blog's scheme; the
    own URL was noted a duplicate. At the crawl's end the record moves to it (records, output,
    stream), the copy becomes its alias, and a listing naming either lists the post."""
    home = "http://state-test-rehome.example/"
    cid = _crawl(state, home)
    state.save_blog(cid, pattern=r"/(a|permalink)/[^/]+\.html")
    posts = [f"{home}a/{i}-post-{i}.html" for i in range(20)]
    copy, own = home + "permalink/The-Post.html", home + "a/170-The-Post.html"
    fed_copy, fed_other = home + "permalink/Fed.html", home + "a/171-Fed.html"
    for u in posts + [copy, fed_copy]:
        state.save_record(cid, {"url": u, "kind": "post", "title": u, "content_text": f"Text of {u}, long enough."}, u, 1000)
    state.save_entries(cid, [{"url": fed_copy, "title": "Fed"}])  # a feed's own URL keeps its record
    state.note_alias(cid, own, copy)
    state.note_alias(cid, fed_other, fed_copy)
    redis_client.hset(Keys(cid).inlist, home, json.dumps([posts + [copy, fed_copy]]))
    before = _streamed(redis_client, cid)
    state.set_state(cid, "done")
    urls = {r["url"]: r for r in state.crawl_records(cid)}
    assert own in urls and copy not in urls and fed_copy in urls and fed_other not in urls
    assert urls[own]["kind"] == "post" and urls[own]["title"] == copy  # the copy's reading, under the own URL
    from tasks.archive.records import record_id
    assert urls[own]["id"] == record_id(own)
    assert redis_client.hget(Keys(cid).aliases, copy) == own
    assert _streamed(redis_client, cid) == before + 1


def test_an_update_crawl_leaves_its_records_as_they_are(state, redis_client):
    home = "http://state-test-unlisted-2.example/"
    cid = state.create_crawl(home, "2020-01-01", {})
    state.set_state(cid, "running")
    posts = [f"{home}2020/01/post-{i}/" for i in range(20)]
    for u in posts + [home + "books/"]:
        state.save_record(cid, {"url": u, "kind": "post", "title": u}, u, 1000)
    redis_client.hset(Keys(cid).inlist, home, json.dumps([posts]))
    state.set_state(cid, "done")
    assert {r["kind"] for r in state.crawl_records(cid)} == {"post"}


def test_records_stay_posts_where_the_crawl_cut_part_of_the_site_as_a_trap(state, redis_client):
    """A crawl that cut a family of pages as a trap (50 archive pages in a row bringing no new
    post) left those listings unread: the posts only they list are not known to be unlisted (a
    new blog's 25 posts became pages in one run and not in another, by the order pages were
    read in). Nothing is judged unlisted then."""
    home = "http://state-test-unlisted-cut.example/"
    cid = _crawl(state, home)
    posts = [f"{home}2020/01/post-{i}/" for i in range(20)]
    for u in posts + [home + "2014/07/03/logdown/read-angularjs/"]:
        state.save_record(cid, {"url": u, "kind": "post", "title": u}, u, 1000)
    redis_client.hset(Keys(cid).inlist, home, json.dumps([[u.rstrip("/") for u in posts]]))
    redis_client.hset(Keys(cid).cut, "archives", 50)
    state.set_state(cid, "done")
    assert {r["kind"] for r in state.crawl_records(cid)} == {"post"}
