"""Crawls that survive a SIGKILLed worker, a Redis restart and 20 blogs at once, on real processes.

Every test runs its own Redis (AOF) and worker processes (tests/workers/cluster.py), so
killing them touches nothing else. Pages are slowed by the politeness delay
(BLOGHARVEST_LOCAL_DELAY) so the crawl is still running when it is interrupted, and the
sweep re-sends pages that stayed in flight longer than BLOGHARVEST_STALE_AFTER.
"""
from __future__ import annotations

import threading
import time
from collections import defaultdict

import pytest

from tests.farm.server import FarmServer
from tests.farm.wordpress import WordPress
from tests.farm.static import Static
from tests.farm.blogger import Blogger
from tests.workers.cluster import Cluster, comparable
from workers.state import Keys

SLOW = {"BLOGHARVEST_STALE_AFTER": "5", "BLOGHARVEST_LOCAL_DELAY": "0.05"}


@pytest.fixture
def make_cluster(tmp_path):
    made = []

    def make(**kw) -> Cluster:
        made.append(Cluster(tmp_path / f"c{len(made)}", **{"env": SLOW, **kw}).start())
        return made[-1]

    yield make
    for c in made:
        c.stop()


@pytest.fixture
def cluster(make_cluster):
    return make_cluster()


def _mid_traversal(c: Cluster, cid: str, pages: int = 5) -> dict:
    """Wait until the crawl is traversing with pages in flight (so an interruption hits work)."""
    return c.wait(cid, 60, until=lambda i: i["state"] != "running" and i["state"] != "queued"
                  or (i["pages"] >= pages and i["in_flight"] > 0
                      and c.state.r.hget(Keys(cid).crawl, "phase") == "traverse"))


def _assert_no_duplicates(c: Cluster, cid: str, records: list[dict]) -> None:
    urls = [r["url"] for r in records]
    assert len(urls) == len(set(urls)), "duplicate records in the crawl's output"
    counts = c.stream_counts(cid)
    assert {u for u, n in counts.items() if n > 1} == set(), f"streamed twice: {counts.most_common(3)}"
    assert set(counts) == set(urls), "stream and crawl output disagree"


def test_sigkill_worker_mid_crawl_same_records_no_duplicates(cluster):
    blog = WordPress(seed=11, n_posts=30, feed_size=10)
    with FarmServer(blog) as site:
        base_info, base = cluster.crawl(site.url, js="never")
    assert base_info["state"] == "done" and len(base) == 30, base_info

    with FarmServer(blog) as site:  # another port: another blog id, fresh state in the same Redis
        cid = cluster.enqueue(site.url, js="never")
        at_kill = _mid_traversal(cluster, cid)
        assert at_kill["state"] == "running", at_kill
        assert cluster.kill_worker(0) == -9
        info = cluster.wait(cid, 60)
        records = cluster.state.crawl_records(cid)
        origin = site.origin
    assert info["state"] == "done", info
    assert cluster.swept() > 0, "the killed worker held no page: nothing was interrupted"
    got, want = comparable(records, origin), comparable(base, base_info["url"].rstrip("/"))
    assert set(got) == set(want), "different posts"
    differ = {(u, f): (got[u][f], want[u][f]) for u in got for f in got[u] if got[u][f] != want[u][f]}
    assert not differ, list(differ.items())[:3]
    _assert_no_duplicates(cluster, cid, records)
    assert not [e for e in cluster.state.errors(cid) if e["kind"] in ("gave_up", "error")]


def test_redis_restart_mid_crawl_resumes(cluster):
    blog = Static(seed=12, n_posts=30, feed_size=10)
    with FarmServer(blog) as site:
        cid = cluster.enqueue(site.url, js="never")
        before = _mid_traversal(cluster, cid)
        assert before["state"] == "running", before
        cluster.restart_redis()
        after_restart = cluster.state.crawl_info(cid)
        info = cluster.wait(cid, 60)
        records = cluster.state.crawl_records(cid)
        errors = cluster.state.errors(cid)
    assert after_restart["pages"] >= before["pages"], "Redis lost progress over the restart (AOF)"
    assert info["state"] == "done", info
    truth = {p.path: p.title for p in blog.posts}
    got = {r["url"][len(site.origin):]: r["title"] for r in records}
    missing = [cluster.where(cid, site.origin + p) for p in set(truth) - set(got)]
    assert got == truth, (missing, errors[:5])
    _assert_no_duplicates(cluster, cid, records)
    assert not [e for e in errors if "Connection" in e["message"]], errors[:5]


class TimedFarm(FarmServer):
    """A farm server that notes when each request arrived."""

    def __init__(self, *a, **kw):
        super().__init__(*a, **kw)
        self.times: list[float] = []
        self._times_lock = threading.Lock()

    def handle(self, req):
        with self._times_lock:
            self.times.append(time.monotonic())
        return super().handle(req)


DELAY = 0.1


def test_twenty_blogs_four_workers_complete_and_polite(make_cluster):
    cluster = make_cluster(n=4, concurrency=2, env={"BLOGHARVEST_LOCAL_DELAY": str(DELAY),
                                                    "BLOGHARVEST_STALE_AFTER": "30"})
    families = [WordPress, Static, Blogger]
    blogs = [families[i % 3](seed=100 + i, n_posts=10, feed_size=5) for i in range(20)]
    sites = [TimedFarm(b).__enter__() for b in blogs]
    try:
        ids = [cluster.enqueue(s.url, js="never") for s in sites]
        infos = [cluster.wait(cid, 120, sweep_every=5) for cid in ids]
        results = [(i, cluster.state.crawl_records(cid)) for i, cid in zip(infos, ids)]
    finally:
        for s in sites:
            s.__exit__(None, None, None)
    gaps = []
    for site, blog, (info, records) in zip(sites, blogs, results):
        assert info["state"] == "done", info
        assert {r["url"][len(site.origin):] for r in records} == {p.path for p in blog.posts}, info
        t = sorted(site.times)
        gaps.append(min(b - a for a, b in zip(t, t[1:])))
        TWENTY.update(requests=TWENTY.get('requests', 0) + len(t))
    # requests to one host arrive at least DELAY apart: a host's turn is held in Redis for the
    # whole cluster from the request's start to DELAY after its end (1% for clock reading)
    assert min(gaps) >= DELAY - 0.01, sorted(gaps)[:5]
