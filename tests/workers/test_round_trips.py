"""Redis round trips of one page of the traversal (issue 22): its state read in one round trip
(`State.page_context`, with the worker's note that it holds the page) and written in one
(`State.end_page`: record, sample, links, done, the next pages handed out), on a real Redis
and a farm WordPress blog, the page processed as a task's chain processes it.

The count is taken on the wire: every write of a redis-py connection made by this thread
(a pipeline is one, a script call is one) while `pipeline.process` runs, and then while
`dispatch` sends what the page's writes handed out. Each write is kept with the commands
it carried and the line of ours that sent it, so a failure says which call came back."""
from __future__ import annotations

import contextlib
import functools
import json
import os
import sys
import threading

import pytest

wordpress = pytest.importorskip("tests.farm.wordpress")
from tests.farm.server import FarmServer  # noqa: E402
from tests.workers.test_page_once import _learned_crawl  # noqa: E402

PAGE_TRIPS = 2  # page_context + end_page, whatever the page (post or listing)


@pytest.fixture(scope="module")
def farm():
    blog = wordpress.WordPress(seed=9, n_posts=24, feed_size=3, comment_feed_size=4, comments_per_page=5)
    with FarmServer(blog) as srv:
        yield srv


def _commands(packed) -> list[str]:
    """The command names in a packed RESP write (MULTI/EXEC left out)."""
    data = packed.encode() if isinstance(packed, str) else b"".join(
        c.encode() if isinstance(c, str) else bytes(c) for c in packed)
    names, i = [], 0
    while data[i:i + 1] == b"*":
        j = data.index(b"\r\n", i)
        n, i = int(data[i + 1:j]), j + 2
        args = []
        for _ in range(n):
            j = data.index(b"\r\n", i)
            size, i = int(data[i + 1:j]), j + 2
            args.append(data[i:i + size])
            i += size + 2
        if args and args[0].upper() not in (b"MULTI", b"EXEC"):
            names.append(args[0].decode().upper())
    return names


def _ours() -> str:
    """file:function:line of the innermost frame of workers/ that led to the write."""
    f = sys._getframe(2)
    while f is not None:
        name = f.f_code.co_filename
        if f"{os.sep}workers{os.sep}" in name and f"{os.sep}tests{os.sep}" not in name:
            return f"{os.path.basename(name)}:{f.f_code.co_name}:{f.f_lineno}"
        f = f.f_back
    return "?"


@contextlib.contextmanager
def round_trips():
    """[(site, [commands])] of every write this thread makes to Redis in the block."""
    import redis.connection

    trips, me = [], threading.get_ident()
    send = redis.connection.AbstractConnection.send_packed_command

    def counted(self, command, check_health=True):
        if threading.get_ident() == me:
            trips.append((_ours(), _commands(command)))
        return send(self, command, check_health)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(redis.connection.AbstractConnection, "send_packed_command", counted)
        yield trips


def _process(rt, cid: str, url: str) -> tuple[dict, list]:
    """(result, round trips) of one page and the dispatch of what its writes handed out; those
    pages are then done (outside the count), as the workers they were sent to would make them."""
    from workers import heal, pipeline

    sent, chain = [], pipeline.Chain(note=functools.partial(heal.pass_page, crawl_id=cid, done=None, url=url))
    with rt.downloader.crawl(cid), round_trips() as trips:
        result = pipeline.process(rt, cid, url, chain=chain)
        pipeline.dispatch(rt, cid, send=lambda c, u: sent.append(u), handed=chain.handed)
    assert sent == chain.handed[0] and sent, "the page's writes handed out the next pages"
    assert url in {json.loads(v)["url"] for v in rt.state.r.hvals(heal.holds_key(heal.WORKER_ID))}, \
        "the page was noted as held (in its first round trip)"
    for u in sent:
        rt.state.mark_done(cid, u)
    return result, trips


def test_a_post_page_costs_one_round_trip_to_read_and_one_to_write(rt, farm):
    cid = _learned_crawl(rt, farm)
    rt.state.enqueue(cid, {farm.url: 2.0})
    beyond = [p for p in farm.blog.posts if rt.state.cached_page(cid, farm.origin + p.path) is None]
    first, post = sorted(beyond, key=lambda p: len(p.comments))[-2:]  # their comment feeds read too
    _process(rt, cid, farm.origin + first.path)  # once a process: the scripts loaded, the model fitted
    url = farm.origin + post.path
    result, trips = _process(rt, cid, url)
    assert result["post"] and result["record"], result
    assert rt.state.record(cid, url)["title"] == post.title
    assert len(trips) <= PAGE_TRIPS, f"{len(trips)} round trips for one post page: {trips}"


def test_a_listing_page_costs_one_round_trip_to_read_and_one_to_write(rt, farm):
    cid = _learned_crawl(rt, farm)
    rt.state.enqueue(cid, {farm.url: 2.0})
    _process(rt, cid, farm.url)  # once a process: the scripts loaded, the model fitted
    listing = next(u for u, _ in rt.state.frontier(cid) if "/page/" in u or "/category/" in u)
    result, trips = _process(rt, cid, listing)
    assert not result["post"] and result["sample"] >= 2, result
    assert rt.state.r.sismember(rt.keys(cid).done, listing)
    assert len(trips) <= PAGE_TRIPS, f"{len(trips)} round trips for one listing page: {trips}"


def test_a_feed_met_in_the_traversal_costs_one_round_trip_to_read_and_one_to_write(rt, farm):
    cid = _learned_crawl(rt, farm)
    rt.state.enqueue(cid, {farm.url: 2.0})
    _process(rt, cid, farm.url)  # once a process: the scripts loaded, the model fitted
    feed = farm.origin + "/feed/?paged=2"
    result, trips = _process(rt, cid, feed)
    assert result["feed"] == 3 and result["sample"] >= 2, result
    assert rt.state.r.sismember(rt.keys(cid).done, feed)
    assert len(trips) <= PAGE_TRIPS, f"{len(trips)} round trips for one feed: {trips}"


def test_a_page_kept_from_a_pages_end_is_read_without_asking_again_what_that_end_read(rt, farm):
    """The end of a page reads the crawl hash's state, options and facts tokens for the pages it
    hands out (issue 33): the one the worker keeps starts without asking for them again, nor
    whether it is done (it was just taken off the frontier); a page sent as a message does."""
    from workers import heal, pipeline

    cid = _learned_crawl(rt, farm)
    rt.state.enqueue(cid, {farm.url: 2.0})
    _process(rt, cid, farm.url)  # once a process: the scripts loaded, the model fitted
    listing = next(u for u, _ in rt.state.frontier(cid) if "/page/" in u or "/category/" in u)
    before = pipeline.Chain(note=functools.partial(heal.pass_page, crawl_id=cid, done=None, url=listing))
    with rt.downloader.crawl(cid):
        pipeline.process(rt, cid, listing, chain=before)
    kept, *sent = before.handed[0]
    chain = pipeline.Chain(note=functools.partial(heal.pass_page, crawl_id=cid, done=None, url=kept))
    with rt.downloader.crawl(cid), round_trips() as trips:
        result = pipeline.process(rt, cid, kept, chain=chain)
    assert "skipped" not in result and rt.state.r.sismember(rt.keys(cid).done, kept), result
    assert "SISMEMBER" not in trips[0][1] and "HMGET" not in trips[0][1], trips[0]
    assert sent, "the listing's end handed out more than one page"
    with rt.downloader.crawl(cid), round_trips() as trips:
        pipeline.process(rt, cid, sent[0])  # a message's page: no page's end read for it here
    assert "SISMEMBER" in trips[0][1] and "HMGET" in trips[0][1], trips[0]
