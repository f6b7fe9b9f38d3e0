"""Politeness without sleeping (workers/fetch/patience.py), task deadlines (workers/limits.py)
and riding out Redis (workers/heal.py), on the test Redis."""
from __future__ import annotations

import json

import pytest
import redis
from celery.exceptions import SoftTimeLimitExceeded

from tasks.fetch.http import FetchError
from workers import heal, limits
from workers.fetch import patience
from workers.fetch.downloader import INLINE_WAIT, Downloader
from workers.redis_server import free_port
from workers.state import Keys


@pytest.fixture
def rt(state):
    from workers.runtime import runtime

    state.r.delete(patience.DELAYED)
    yield runtime()
    state.r.delete(patience.DELAYED)


def test_long_wait_goes_to_the_delayed_set_and_comes_back_when_due(rt):
    sent = []
    cid = "abcdef123456-patience1"
    patience.defer_page(rt, cid, "http://x.test/a", 600.0, lambda *a, **kw: sent.append((a, kw)))
    assert sent == []  # 600 s: no message waits that long in a worker
    [(c, u, due)] = patience.delayed(rt)
    assert (c, u) == (cid, "http://x.test/a")
    # still in flight, its time set to when it is due: the stale sweep leaves it alone meanwhile
    assert float(rt.state.r.hget(Keys(cid).inflight, u)) == pytest.approx(due)
    assert patience.release_due(rt, lambda *a: sent.append(a), now=due - 1) == 0
    assert patience.release_due(rt, lambda *a: sent.append(a), now=due + 1) == 1
    assert sent == [(cid, "http://x.test/a")] and patience.delayed(rt) == []


def test_short_wait_goes_to_the_due_set_too_never_a_countdown_message(rt):
    """(issue 33) a countdown message would wait in one worker's memory: a politeness wait of
    any length is in the due set, which every worker's pacer drains."""
    patience.defer_page(rt, "abcdef123456-patience2", "http://x.test/b", 3.0)
    [(c, u, due)] = patience.delayed(rt)
    assert (c, u) == ("abcdef123456-patience2", "http://x.test/b")
    pages, following = patience.pop_due(rt.state.r, now=due - 1)
    assert pages == [] and following == pytest.approx(1.0, abs=1e-3)
    assert patience.pop_due(rt.state.r, now=due)[0] == [(c, u)] and patience.delayed(rt) == []


def test_busy_steps_book_slots_of_their_own(rt):
    """(issue 33) steps that find a host busy each book a slot of its own, a gap apart (no herd
    waking at once); the wait each is told is until its slot."""
    dl = Downloader(rt.state, rt.settings)
    host = f"paced-{free_port()}.test"
    with dl.turn(host, 5.0):
        pass
    waits = []
    for _ in range(3):
        with pytest.raises(patience.HostBusy) as e:
            with dl.turn(host, 5.0):
                pytest.fail("got a turn 5 s early")
        waits.append(e.value.wait)
    assert 4.0 < waits[0] <= 5.0
    assert waits[1] - waits[0] == pytest.approx(5.0, abs=0.5) and waits[2] - waits[1] == pytest.approx(5.0, abs=0.5)


def test_a_far_turn_raises_host_busy_instead_of_sleeping(rt):
    dl = Downloader(rt.state, rt.settings)
    host = f"busy-{free_port()}.test"
    with dl.turn(host, 600.0):
        pass  # one request: the host's next turn is 600 s away
    with pytest.raises(patience.HostBusy) as e:
        with dl.turn(host, 600.0):
            pytest.fail("got a turn 600 s early")
    assert e.value.wait > INLINE_WAIT


def test_remembering_replays_responses_and_errors(rt, monkeypatch):
    from tasks.fetch.http import Response

    calls = []

    def get(url, **kw):
        calls.append(url)
        if "bad" in url:
            raise FetchError("http_status", url, "HTTP 500", status=500)
        return Response(url=url, status=200, reason="OK", headers=[("content-type", "text/html")],
                        content=b"<html>hi</html>", content_type="text/html", encoding="utf-8")

    monkeypatch.setattr(rt.downloader, "get", get)
    cid = "abcdef123456-patience3"

    def step():
        proxy, memo = patience.remembering(rt, cid, "http://x.test/")
        assert proxy.downloader.get("http://x.test/").content == b"<html>hi</html>"
        with pytest.raises(FetchError):
            proxy.downloader.get("http://x.test/bad")
        assert proxy.state is rt.state  # everything else is the runtime's
        return memo

    step().forget()  # done: nothing was written to Redis
    assert calls == ["http://x.test/", "http://x.test/bad"]
    step().keep()  # deferred: its fetches kept for the next run
    memo = step()  # ... which fetches nothing again
    assert calls == ["http://x.test/", "http://x.test/bad"] * 2
    memo.forget()
    assert not rt.state.r.exists(memo.key)


def test_what_a_step_worked_out_is_read_back_by_its_next_run(rt):
    """A result worked out from the fetches (a rule learned on a sample) is kept with them: an
    eager step's next run reads it back, computed once; once the step is done, it is gone."""
    cid = "abcdef123456-patience4"
    computed = []

    def run():
        _, memo = patience.remembering(rt, cid, "rule", eager=True)
        return memo, memo.worked_out("sample a", lambda: computed.append(1) or {"rule": "//li"})

    memo, value = run()
    assert value == {"rule": "//li"} and rt.state.r.exists(memo.key)
    memo, again = run()  # run again after a wait: read back, not worked out again
    assert again == value and computed == [1]
    memo.forget()
    assert run()[1] == value and computed == [1, 1]  # the step done: a new settling works it out


def test_deadline_check():
    limits.start(None)
    limits.check()  # no deadline: nothing
    limits.start(60)
    limits.check()
    assert 59 < limits.remaining() <= 60
    limits.start(-1)  # already past
    with pytest.raises(SoftTimeLimitExceeded):
        limits.check()
    limits.clear()
    assert limits.remaining() is None


def test_wait_for_redis_gives_up_after_its_patience():
    r = redis.Redis(port=free_port(), socket_connect_timeout=0.2)
    assert heal.wait_for_redis(r, patience=0.5) is False


def test_heartbeats_and_holds(state):
    r = state.r
    now = heal.beat(r, "other/1/x")
    assert "other/1/x" in heal.dead_workers(r, now + heal.DEAD_AFTER + 1)
    assert "other/1/x" not in heal.dead_workers(r, now + 1)
    with r.pipeline() as p:
        heal.pass_page(p, "abcdef123456-c", None, "http://x.test/p")
        p.execute()
    assert json.loads(r.hget(heal.holds_key(heal.WORKER_ID), "page abcdef123456-c http://x.test/p")) == {
        "crawl": "abcdef123456-c", "url": "http://x.test/p"}
    heal.release_page(r, "abcdef123456-c", "http://x.test/p")
    assert r.hlen(heal.holds_key(heal.WORKER_ID)) == 0
    r.zrem(heal.HEARTBEATS, "other/1/x")


def test_a_chains_kept_page_is_one_note_written_over_page_after_page(state):
    """(issue 33) A process_url chain notes the page it keeps in one field of its own: the next
    page's note replaces the last one's in one HSET (no HDEL), and the chain's end drops it."""
    r, key = state.r, heal.holds_key(heal.WORKER_ID)
    with r.pipeline() as p:
        heal.pass_page(p, "abcdef123456-c", None, "http://x.test/a", chain="c1")
        p.execute()
    with r.pipeline() as p:
        heal.pass_page(p, "abcdef123456-c", "http://x.test/a", "http://x.test/b", chain="c1")
        assert [c[0][0] for c in p.command_stack] == ["HSET"]
        p.execute()
    assert {f: json.loads(v) for f, v in r.hgetall(key).items()} == {
        "page c1": {"crawl": "abcdef123456-c", "url": "http://x.test/b"}}
    heal.release_page(r, "abcdef123456-c", "http://x.test/b", "c1")
    assert r.hlen(key) == 0


class _Received:
    """What heal reads of a received message (celery.worker.request.Request's attributes)."""

    def __init__(self, task_id: str, retries: int, tag: str):
        self.id, self.name, self.args = task_id, "blogharvest.learn_page", ["abcdef123456-c", "http://x.test/"]
        self.request_dict = {"retries": retries}
        self.message = type("M", (), {"delivery_tag": tag})()


def test_a_retry_received_before_its_predecessor_ended_stays_held(state):
    r, key = state.r, heal.holds_key(heal.WORKER_ID)
    r.delete(key)
    heal.hold_message(r, _Received("t1", 0, "tag-a"))
    heal.hold_message(r, _Received("t1", 1, "tag-b"))  # the retry, same task id
    heal.release_message(r, "t1", 0)  # the first delivery ends after the retry arrived
    assert [json.loads(v)["tag"] for v in r.hvals(key)] == ["tag-b"]
    heal.release_message(r, "t1", 1)
    assert r.hlen(key) == 0


def test_a_silent_worker_with_no_connection_left_is_dead_before_the_long_silence(state, redis_server):
    """(issue 36) A killed worker's connections close with it: silent for `gone_after` s and
    no connection named after it is dead, even when the sweeper is not steady; a silent one
    still connected (starved, or behind a Redis pause) waits for the long silence."""
    r = state.r
    alive = redis.Redis.from_url(redis_server.url, client_name="alive/1/x")
    alive.ping()
    try:
        while int(r.info("server")["uptime_in_seconds"]) < 2:  # (no judging right after a restart)
            r.ping()
        now = heal.beat(r, "gone/1/x")
        heal.beat(r, "alive/1/x")
        dead = heal.dead_workers(r, now + 1.1, gone_after=1.0, steady=False)
        assert "gone/1/x" in dead and "alive/1/x" not in dead
        # the sweeper's own beats came late (a Redis pause): a worker whose connections timed out
        # in it reconnects at its next beat, so no connection proves nothing yet
        assert heal.dead_workers(r, now + 1.1, gone_after=1.0, steady=False, settled=False) == []
        assert heal.dead_workers(r, now + 0.5, gone_after=1.0, steady=False) == []
        assert "alive/1/x" in heal.dead_workers(r, now + heal.DEAD_AFTER + 1, gone_after=1.0)
    finally:
        r.zrem(heal.HEARTBEATS, "gone/1/x", "alive/1/x")
        alive.close()


def test_a_queued_page_message_is_read_as_its_page():
    """workers/orphans.py reads the page a queued message carries (kombu's JSON, base64 body)."""
    import base64

    from workers import orphans

    body = base64.b64encode(json.dumps([["abcdef123456-c", "http://x.test/p"], {}, {}]).encode()).decode()
    raw = json.dumps({"body": body, "headers": {"task": "blogharvest.process_url"},
                      "properties": {"body_encoding": "base64"}})
    assert orphans.page_of(raw) == ("abcdef123456-c", "http://x.test/p")
    assert orphans.page_of(raw.replace("process_url", "learn_page")) is None
    assert orphans.page_of("not json") is None


def test_only_a_crawl_whose_first_message_was_sent_is_started_again_from_queued(rt):
    """The sweep may start again a crawl left `queued` (its new_crawl lost with a worker), but
    only one that workers.start.start_crawl sent: a crawl a process creates and drives itself
    (as tests and library callers do) is never taken from it, however long it stays queued."""
    import time

    from workers import orphans

    mine = rt.state.create_crawl("http://driven.test/", None, {})
    lost = rt.state.create_crawl("http://lost.test/", None, {})
    long_ago = time.time() - 10 * orphans.ORPHAN_AFTER
    rt.state.r.hset(Keys(mine).crawl, "created", long_ago)
    rt.state.r.hset(Keys(lost).crawl, mapping={"created": long_ago, "sent": long_ago})
    _, starting, _ = orphans.crawls(rt, queued=True)
    assert lost in starting and mine not in starting
    _, starting, _ = orphans.crawls(rt, queued=False)
    assert lost not in starting


def test_a_traversing_crawl_a_process_drives_itself_is_never_dispatched_by_a_sweep(rt):
    """A crawl traversing with pages queued is the sweep's to dispatch (a worker died with its
    pages) only where tasks drive it (new_crawl marks it `tasked`): a crawl a process made and
    traverses itself would have its queued pages handed to workers while it reads them (a test
    driving `pipeline.process` on the session's Redis found its page read by a worker)."""
    from workers import crawl, orphans

    sent = []
    ids = {}
    for name in ("driven", "tasked"):
        cid = ids[name] = rt.state.create_crawl(f"http://{name}.test/", None, {"js": "never"})
        rt.state.set_state(cid, "running")
        rt.state.enqueue(cid, {f"http://{name}.test/p": 1.0})
        rt.state.set_phase(cid, "traverse")
    rt.state.r.hset(Keys(ids["tasked"]).crawl, "tasked", 1)
    running, _, _ = orphans.crawls(rt)
    assert ids["tasked"] in running and ids["driven"] not in running
    with pytest.MonkeyPatch.context() as mp:  # beat's sweep task too
        mp.setattr(crawl, "send_page", lambda c, u, **_kw: sent.append((c, u)))
        crawl.sweep.run()
    assert (ids["driven"], "http://driven.test/p") not in sent
    assert (ids["tasked"], "http://tasked.test/p") in sent


@pytest.mark.parametrize("task_name", ["new_crawl", "update_crawl"])
def test_a_discovery_that_meets_a_busy_host_is_its_own_task_sent_again(rt, monkeypatch, task_name):
    """Discovery that meets a busy host goes on at the host's turn as the same task (new crawl
    or update crawl): an update crawl once raised the retry of a task it had only called, so no
    message was sent and the crawl sat until the sweep started it again (about 30 s)."""
    from workers import crawl, pipeline

    calls = []

    def discover(rt_, crawl_id, url, since):
        calls.append(since)
        if len(calls) == 1:
            raise patience.HostBusy("busy.test", 0.01)
        return {"nothing": "nothing to read"}

    monkeypatch.setattr(pipeline, "discover", discover)
    task = getattr(crawl, task_name)
    since = "2020-01-01" if task_name == "update_crawl" else None
    crawl_id = rt.state.create_crawl("http://busy.test/", since, {})
    result = task.apply(kwargs={"url": "http://busy.test/", "since": since, "crawl_id": crawl_id})
    assert result.successful(), result.traceback
    assert len(calls) == 2
    assert rt.state.r.hget(Keys(crawl_id).crawl, "state") == "done"


def test_a_discovery_that_gets_no_further_ends_failed_with_its_reason(rt, monkeypatch):
    """Each discovery run after a busy host's wait goes a request further; one that forgot a
    failure (robots.txt asked again from the start) met the same busy host for good. Runs in a
    row that fetch nothing new end the crawl failed, said in its report; a run that fetched
    something starts the count again."""
    from workers import crawl, pipeline

    calls = []

    def discover(rt_, crawl_id, url, since):
        calls.append(1)
        if len(calls) == 5:  # one run gets further: the count starts again
            try:
                rt_.downloader.get("http://127.0.0.1:9/unreachable")
            except FetchError:
                pass
        raise patience.HostBusy("busy.test", 0.001)

    monkeypatch.setattr(pipeline, "discover", discover)
    crawl_id = rt.state.create_crawl("http://busy.test/", None, {})
    result = crawl.new_crawl.apply(kwargs={"url": "http://busy.test/", "crawl_id": crawl_id})
    assert result.successful(), result.traceback
    assert len(calls) == 5 + crawl.MAX_STALLS
    info = rt.state.crawl_info(crawl_id)
    assert info["state"] == "failed" and "fetched nothing new" in info["message"], info
    assert any(e["kind"] == "discovery" for e in rt.state.errors(crawl_id))


def test_a_discovery_run_again_parses_each_feed_page_once(rt, monkeypatch):
    """Discovery runs again from its start at each turn of its host, its fetches read back from
    Redis: the feed pages it read are not parsed again (a blog whose training read thirty pages
    parsed its feed thirty times); what each run gets is its own to change."""
    from tasks.discover import feeds as feedlib
    from tasks.fetch.http import Response
    from workers.discover import feed as discovery

    body = (b'<?xml version="1.0"?><rss version="2.0"><channel><title>t</title><link>http://x.test/</link>'
            b'<item><title>A</title><link>http://x.test/a/</link><description>hello</description></item>'
            b'</channel></rss>')
    monkeypatch.setattr(rt.downloader, "get", lambda url, **kw: Response(
        url=url, status=200, reason="OK", headers=[], content=body, content_type="application/rss+xml", encoding=None))
    parsed, parse = [], feedlib.parse_feed
    monkeypatch.setattr(feedlib, "parse_feed", lambda *a, **kw: parsed.append(a[1]) or parse(*a, **kw))
    first = discovery._read_feed(rt, "http://x.test/feed-once/")
    first["entries"].clear()  # a run changing what it was given
    again = discovery._read_feed(rt, "http://x.test/feed-once/")
    assert parsed == ["http://x.test/feed-once/"]
    assert [e["url"] for e in again["entries"]] == ["http://x.test/a/"]
    changed = body.replace(b"/a/", b"/b/")  # other bytes at the same URL: parsed
    monkeypatch.setattr(rt.downloader, "get", lambda url, **kw: Response(
        url=url, status=200, reason="OK", headers=[], content=changed, content_type="application/rss+xml", encoding=None))
    assert [e["url"] for e in discovery._read_feed(rt, "http://x.test/feed-once/")["entries"]] == ["http://x.test/b/"]
    assert len(parsed) == 2
