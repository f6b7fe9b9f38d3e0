"""The traversal's start against the sweep, which any worker (the heal timer, beat, the CLI's
follower, a test's cluster client every second) may run at any moment (workers/traverse.py).

A sweep dispatches a crawl in the traverse phase and ends it when nothing is queued and
nothing is in flight. So the phase may read "traverse" only once the seeds are queued:
a sweep that came between the two would end a crawl of a 40-post blog "done" with no
page read (it did, once, under load: tests/workers/test_faults.py::test_pages_per_blog_limit).
Here a real sweep runs between every two Redis round trips of `start_traversal`, on a
private Redis and a farm blog.
"""
from __future__ import annotations

import redis

from tests.farm.server import FarmServer
from tests.farm.wordpress import WordPress
from workers import pipeline
from workers.redis_server import RedisServer
from workers.runtime import Runtime
from workers.settings import settings
from workers.state import State


def _runtime_on(client: redis.Redis) -> Runtime:
    """A worker's runtime whose Redis client is `client`."""
    rt = Runtime(settings())
    rt.state = State(client)  # (a cached property: set before anything reads it)
    rt.state.finished_ttl = rt.settings.finished_ttl
    return rt


def _interleaved(between):
    """A connection class that calls `between()` after each reply it reads: another step
    comes between any two round trips of a client made of it."""

    class Interleaved(redis.Connection):
        def read_response(self, *a, **kw):
            reply = super().read_response(*a, **kw)
            between()
            return reply

    return Interleaved


def test_a_sweep_at_any_moment_of_the_traversal_start_never_ends_the_crawl(tmp_path):
    blog = WordPress(seed=24, n_posts=6, feed_size=3)
    server = RedisServer(tmp_path / "redis", persist=False).start()
    try:
        with FarmServer(blog) as site:
            sweeper = _runtime_on(redis.Redis.from_url(server.url, decode_responses=True))
            st = sweeper.state
            cid = st.create_crawl(site.url, None, {"js": "never"})
            st.set_state(cid, "running")
            st.set_phase(cid, "learn")  # as reduce_rules leaves it
            entries = [site.origin + p.path for p in blog.posts[-3:]]
            st.save_blog(cid, home=site.url, entry_urls=entries)
            sent: list[str] = []
            seen_by_sweeps: list[tuple[str, str, int]] = []  # (state, phase, urls queued ever) each sweep met

            def sweep():
                seen_by_sweeps.append((st.state_of(cid), st.r.hget(sweeper.keys(cid).crawl, "phase"),
                                       st.r.scard(sweeper.keys(cid).seen)))
                pipeline.recover(sweeper, cid, send=lambda _c, u, **_kw: sent.append(u))

            pool = redis.ConnectionPool.from_url(server.url, decode_responses=True,
                                                 connection_class=_interleaved(sweep))
            traverser = _runtime_on(redis.Redis(connection_pool=pool))
            pipeline.start_traversal(traverser, cid, None, send=lambda _c, u, **_kw: sent.append(u))
            info = st.crawl_info(cid)
            pool.disconnect()
    finally:
        server.stop()
    traversing = [s for s in seen_by_sweeps if s[1] == "traverse"]
    assert traversing, seen_by_sweeps  # sweeps did come while the crawl was traversing
    assert all(seen for _, _, seen in traversing), seen_by_sweeps  # never before its seeds were queued
    assert info["state"] == "running", info  # not "done" with no page read
    assert site.url in sent and set(entries) <= set(sent), sent  # the home page and the feed's posts handed out
    assert len(sent) == len(set(sent)), sent  # each once
