"""Issue 19 at the workers' level, against the hostile farm faults: cookies per crawl, the feed
fallback past broken and entity-bomb feeds, the task schema, trap limits and budget_exhausted."""
from __future__ import annotations

import pytest

from tests.farm.faults import Faults, apply, entity_bomb, fault
from tests.httpd import LoopbackServer, Reply

# crash and outage scenarios time recovery: they run one after another on one xdist worker
# (--dist loadgroup), beside the rest of the suite but not beside each other
pytestmark = pytest.mark.xdist_group("chaos")


FEED_ITEM = ("<item><title>Post {i}</title><link>{o}/post-{i}/</link><guid>{o}/post-{i}/</guid>"
             "<pubDate>Sun, 0{i} Mar 2014 10:00:00 +0000</pubDate><description>Words of post {i} about "
             "mountains and rivers and the long road home.</description></item>")


def rss(origin: str, n: int = 3) -> str:
    items = "".join(FEED_ITEM.format(i=i, o=origin) for i in range(1, n + 1))
    return (f'<?xml version="1.0" encoding="utf-8"?><rss version="2.0"><channel><title>B</title>'
            f'<link>{origin}/</link><description>d</description>{items}</channel></rss>')


class Site:
    """A tiny blog on loopback whose home page declares `feeds` (paths) in order."""

    def __init__(self, feeds: list[str], routes: dict):
        self.feeds, self.routes = feeds, routes
        self.server = LoopbackServer(self.route)

    def route(self, req):
        o = self.server.url.rstrip("/")
        path = req.split.path
        if path == "/":
            links = "".join(f'<link rel="alternate" type="application/rss+xml" href="{o}{f}">' for f in self.feeds)
            return Reply(200, f"<html><head><title>B</title>{links}</head><body><p>home</p></body></html>")
        make = self.routes.get(path)
        if make is None:
            return Reply(404, "not found")
        return make(o) if callable(make) else make

    def __enter__(self):
        self.server.__enter__()
        return self

    def __exit__(self, *exc):
        self.server.__exit__(*exc)

    @property
    def url(self):
        return self.server.url


@pytest.fixture
def rt(state, monkeypatch):
    from workers.runtime import runtime

    return runtime()


def discover(rt, url: str) -> dict:
    from workers import pipeline

    cid = rt.state.create_crawl(url, None, {"js": "never"})
    with rt.downloader.crawl(cid):
        return pipeline.discover(rt, cid, url, None)


# ------------------------------------------------------------------ feeds

def test_entity_bomb_feed_is_refused_and_the_next_candidate_read(rt):
    bomb = Reply(200, entity_bomb(10_000, 2_000), content_type="application/rss+xml")
    with Site(["/bomb.xml", "/good.xml"], {"/bomb.xml": bomb,
                                            "/good.xml": lambda o: Reply(200, rss(o), content_type="application/rss+xml")}) as site:
        plan = discover(rt, site.url)
    assert plan["feed"].endswith("/good.xml") and len(plan["entries"]) == 3


def test_broken_first_feed_falls_back_to_a_clean_one(rt):
    def broken(o):
        body = rss(o).encode()
        return Reply(200, body[: body.index(b"<item>", body.index(b"<item>") + 1) + 30],
                     content_type="application/rss+xml")

    with Site(["/broken.xml", "/good.xml"], {"/broken.xml": broken,
                                              "/good.xml": lambda o: Reply(200, rss(o), content_type="application/rss+xml")}) as site:
        plan = discover(rt, site.url)
    assert plan["feed"].endswith("/good.xml") and len(plan["entries"]) == 3


# ------------------------------------------------------------------ cookies

def test_cookies_are_per_crawl_not_per_worker_thread(rt):
    """Blog A floods cookies on host 127.0.0.1; blog B on the same host (another port: cookies
    ignore ports) answers 431 to any Cookie header. Same worker thread, two crawls."""
    from tasks.fetch.http import FetchError

    page = Reply(200, "<html><body><p>page</p></body></html>")

    def blog(kind):
        faults = Faults({"/p": fault(kind, count=5, size=100)})
        return LoopbackServer(lambda req: apply(faults.match(req.path, req.split.path), req.path,
                                                lambda: page, "", req.headers)
                              if faults.match(req.path, req.split.path, consume=False) else page)

    with blog("set_cookie") as a, blog("require_no_cookie") as b:
        dl = rt.downloader
        with dl.crawl(rt.state.create_crawl(a.url, None, {})):
            dl.get(a.url + "p", obey_robots=False)
            dl.get(a.url + "p", obey_robots=False)
        with dl.crawl(rt.state.create_crawl(b.url, None, {})):
            try:
                r = dl.get(b.url + "p", obey_robots=False)
            except FetchError as e:
                pytest.fail(f"blog A's cookies reached blog B: {e}")
        assert r.status == 200


def test_cookie_flood_does_not_make_a_site_answer_431(rt):
    from workers.fetch.downloader import MAX_COOKIE_BYTES

    page = Reply(200, "<html><body><p>page</p></body></html>")
    flood = Reply(200, "<html><body>x</body></html>", cookies=[f"c{i}={'v' * 3000}; Path=/" for i in range(40)])

    def route(req):
        if len(req.headers.get("cookie", "")) > MAX_COOKIE_BYTES:
            return Reply(431, "too large")
        return flood if req.split.path == "/flood" else page

    with LoopbackServer(route) as s:
        dl = rt.downloader
        with dl.crawl(rt.state.create_crawl(s.url, None, {})):
            dl.get(s.url + "flood", obey_robots=False)
            assert dl.get(s.url + "p", obey_robots=False).status == 200


# ------------------------------------------------------------------ the task schema

@pytest.mark.parametrize("since,options,what", [
    ("garbage", {}, "since"), ("2014-13-45", {}, "since"), (None, {"max_pagez": 5}, "unknown option"),
    (None, {"max_pages": "10"}, "max_pages"), (None, {"max_pages": -1}, "max_pages"),
    (None, {"js": "sometimes"}, "js"), (None, {"update": "yes"}, "update"), (None, ["js"], "options"),
])
def test_bad_task_arguments_are_refused_with_a_clear_error(rt, since, options, what):
    from workers.crawl import new_crawl
    from workers.validate import InvalidTask

    with pytest.raises(InvalidTask) as e:
        new_crawl.run("http://schema-test.example/", since=since, options=options)
    assert what in str(e.value)


def test_own_crawl_with_bad_since_ends_failed_with_the_reason(rt):
    from workers.crawl import new_crawl
    from workers.validate import InvalidTask

    url = "http://schema-own.example/"
    cid = rt.state.create_crawl(url, None, {})
    with pytest.raises(InvalidTask):
        new_crawl.run(url, since="garbage", crawl_id=cid, options={})
    info = rt.state.crawl_info(cid)
    assert info["state"] == "failed" and "since" in info["message"]
    assert any(e["kind"] == "invalid_task" for e in rt.state.errors(cid))


def test_crawl_id_of_another_blog_is_refused_and_its_keys_untouched(rt):
    from workers.crawl import new_crawl, process_url
    from workers.validate import InvalidTask

    victim = "http://victim-blog.example/"
    cid = rt.state.create_crawl(victim, None, {"max_pages": 7})
    before = rt.state.r.hgetall(rt.keys(cid).crawl)
    with pytest.raises(InvalidTask) as e:
        new_crawl.run("http://attacker.example/", crawl_id=cid, options={})
    assert "another blog" in str(e.value)
    with pytest.raises(InvalidTask):
        new_crawl.run(victim + "other/", crawl_id=cid, options={})
    assert rt.state.r.hgetall(rt.keys(cid).crawl) == before
    # page tasks naming an unknown or malformed crawl write nothing
    ghost = cid.split("-")[0] + "-" + "0" * 10
    assert process_url.run(ghost, victim + "p")["error"] == "invalid_task"
    assert process_url.run("../../etc", victim + "p")["error"] == "invalid_task"
    assert not rt.state.r.keys(f"*{ghost}*")


def test_enqueue_refuses_before_creating_anything(rt):
    from workers.follow import enqueue
    from workers.validate import InvalidTask

    n = rt.state.r.zcard("bh:crawls")
    with pytest.raises(InvalidTask):
        enqueue("http://enqueue-test.example/", "yesterday", {})
    with pytest.raises(InvalidTask):
        enqueue("http://127.0.0.1:1\\@example.org/", None, {})
    assert rt.state.r.zcard("bh:crawls") == n


# ------------------------------------------------------------------ traps and the budget

def test_trap_urls_are_not_queued(rt):
    from workers import pipeline

    cid = rt.state.create_crawl("http://trap-test.example/", None, {"order": "bfs"})
    o = "http://trap-test.example"
    deep = o + "".join(f"/d{i}" for i in range(20)) + "/"
    urls = [o + "/fine/", deep, o + "/a/b/a/b/a/b/", o + "/x/x/x/", o + "/" + "q" * 3000,
            o + "/2014/03/09/post/"]
    pipeline._queue_links(rt, cid, [], urls, {"order": "bfs"})
    queued = {u for u, _ in rt.state.frontier(cid)}
    assert queued == {o + "/fine/", o + "/2014/03/09/post/"}
    assert rt.state.crawl_info(cid)["trapped"] == 4
    assert {e["kind"] for e in rt.state.errors(cid)} == {"trap"}


def test_query_variants_per_path_are_bounded(rt, monkeypatch):
    from tasks.discover import traps
    from workers import pipeline

    monkeypatch.setattr(pipeline, "TRAP_LIMITS", traps.TrapLimits(max_query_variants=10))
    cid = rt.state.create_crawl("http://variants-test.example/", None, {})
    o = "http://variants-test.example"
    for batch in range(3):
        urls = [f"{o}/calendar/?month={batch * 10 + i}" for i in range(10)] + [f"{o}/list/?page={batch}"]
        pipeline._queue_links(rt, cid, [], urls, {"order": "bfs"})
    queued = [u for u, _ in rt.state.frontier(cid)]
    assert sum("/calendar/" in u for u in queued) == 10 and sum("/list/" in u for u in queued) == 3


def _end(rt, cid, url, home, posts, others, cut, limits):
    """One non-post page's end as the pipeline writes it: its links (the trap count with them)."""
    from workers import traverse

    source = traverse.Source(url, home, cut)
    found = traverse.links(rt, cid, posts, others, {"order": "bfs"}, traps=limits, source=source)
    end = rt.state.end_page(cid, url, posts=found.posts, estimates=found.estimates, tie=found.tie, trap=found.trap)
    if end["cut"]:
        traverse.report_cut(rt, cid, url, source, end["cut"])
    return end


def test_a_family_bringing_only_more_of_itself_is_cut_and_reported(rt):
    """Calendar pages (each the next month, a known post beside it) are cut after `max_barren`
    in a row; a listing whose every page brings a new post is never cut."""
    from tasks.discover import traps

    limits = traps.TrapLimits(max_barren=5)
    o = "http://barren-test.example"
    cid = rt.state.create_crawl(o + "/", None, {"order": "bfs"})
    rt.state.set_state(cid, "running")
    rt.state.enqueue(cid, {o + "/2014/01/01/known/": 1.0})
    cut_at = None
    for n in range(1, 12):
        page = f"{o}/calendar/{n}/"
        end = _end(rt, cid, page, o + "/", [o + "/2014/01/01/known/"], [f"{o}/calendar/{n + 1}/"],
                   rt.state.page_context(cid, page)["cut"], limits)
        lst = f"{o}/page/{n}/"  # interleaved: a listing that brings a post each page
        assert not _end(rt, cid, lst, o + "/", [f"{o}/2014/01/{n:02d}/post-{n}/"], [f"{o}/page/{n + 1}/"],
                        rt.state.page_context(cid, lst)["cut"], limits)["cut"]
        if end["cut"]:
            cut_at = n
    assert cut_at == 5
    queued = {u for u, _ in rt.state.frontier(cid)}
    assert o + "/calendar/6/" in queued and o + "/calendar/7/" not in queued  # linked before the cut, not after
    assert o + "/page/12/" in queued
    report = [e for e in rt.state.errors(cid) if e["kind"] == "trap"]
    assert any("/calendar/*" in e["message"] and "5 of its pages" in e["message"] for e in report), report
    assert rt.state.crawl_info(cid)["trapped"] == 6  # calendar/7/ ... calendar/12/: the links after the cut


# ------------------------------------------------------------------ a whole hostile crawl

@pytest.mark.slow
@pytest.mark.flaky(reruns=1)  # a whole crawl on a loaded 2-core machine: once more before failing
def test_hostile_pages_are_page_errors_and_traps_end_the_crawl_done(farm_blog, tmp_path):
    """One blog, every hostile page at once, through real workers of its own (no crawl another
    test left behind shares them): the crawl ends "done" (not failed, not budget_exhausted),
    each hostile page is that page's error, the rest is archived."""
    from tests.farm import make_blog
    from tests.workers.cluster import Cluster

    blog = make_blog("wordpress", seed=19, n_posts=20)
    posts = blog.posts  # oldest first; the feed lists the newest
    hostile = {posts[-1].path: fault("bad_location"), posts[-2].path: fault("many_headers"),
               posts[-3].path: fault("charset", charset="rot13"), "/robots.txt": fault("charset", charset="base64"),
               "/": fault("extra_link", href="/trap/"), "/trap/*": fault("deep_trap")}
    site = farm_blog("wordpress", seed=19, n_posts=20, faults=hostile)
    c = Cluster(tmp_path / "cluster", env={"BLOGHARVEST_ALLOW_PRIVATE": "1", "BLOGHARVEST_LOCAL_DELAY": "0"}).start()
    try:
        cid = c.enqueue(site.url, js="never")
        info = c.wait(cid, 240)
        info["error_report"], records = c.state.errors(cid), c.state.crawl_records(cid)
    finally:
        c.stop()
    assert info["state"] == "done", info
    kinds = {}
    for e in info["error_report"]:
        kinds.setdefault(e["url"], set()).add(e["kind"])
    o = site.origin
    assert "bad_url" in kinds.get(o + posts[-1].path, set()), kinds
    assert "bad_response" in kinds.get(o + posts[-2].path, set()), kinds
    assert info["trapped"] > 0 and any("trap" in k for k in kinds.values())
    trap_pages = [t for t in site.hits if t.startswith("/trap/")]
    assert 0 < len(trap_pages) < 200, len(trap_pages)
    found = {r["url"] for r in records}
    assert o + posts[-3].path in found  # read despite its rot13 charset
    assert len(found & {o + p.path for p in posts[:-2]}) >= 17


def test_a_failing_part_of_a_post_is_reported_and_the_post_kept(rt):
    """Media or comments raising anything but a Redis outage: reported, the post keeps going."""
    import redis

    from workers import pipeline

    cid = rt.state.create_crawl("http://part-test.example/", None, {})

    def broken(*_a):
        raise LookupError("unknown encoding: rot13")

    assert pipeline._part(rt, cid, "http://part-test.example/p", "media", [], broken) == []
    [e] = rt.state.errors(cid)
    assert e["kind"] == "media_error" and "rot13" in e["message"]

    def redis_down(*_a):
        raise redis.exceptions.ConnectionError("away")

    with pytest.raises(redis.exceptions.ConnectionError):
        pipeline._part(rt, cid, "http://part-test.example/p", "comments", None, redis_down)


ENDLESS = {"/calendar/": ("calendar", "/calendar/1/"), "/list/": ("paged_trap", "/list/?page=1"),
           "/search/": ("growing_query", "/search/?a0=1"), "/forum/": ("session_trap", "/forum/"),
           "/tree/": ("deep_trap", "/tree/")}


@pytest.mark.slow
def test_endless_parts_of_a_small_blog_are_cut_and_every_post_found(farm_blog, crawl):
    """Issue 34: a 6-post blog whose home links five endless parts (a calendar, an endless
    `?page=N`, a growing query, session tokens, an ever-deeper tree), their pages linking the
    blog's posts: each part is cut well within 200 pages and reported, every post found, the
    crawl ends done (not on its page budget)."""
    from tests.farm import make_blog

    paths = [p.path for p in make_blog("wordpress", seed=34, n_posts=6).posts]
    faults = {"/": fault("extra_link", hrefs=[entry for _, entry in ENDLESS.values()])}
    faults.update({prefix + "*": fault(kind, posts=paths) for prefix, (kind, _) in ENDLESS.items()})
    site = farm_blog("wordpress", seed=34, n_posts=6, faults=faults)
    info, records = crawl(site.url, js="never", timeout=240)
    assert info["state"] == "done", info
    assert {r["url"] for r in records} >= set(site.post_urls())
    for prefix in ENDLESS:
        served = sum(n for t, n in site.hits.items() if t.startswith(prefix))
        assert 0 < served <= 120, (prefix, served)
    report = [e["message"] for e in info["error_report"] if e["kind"] == "trap"]
    cut = {prefix for prefix in ENDLESS if any(f"{prefix}* not followed" in m for m in report)}
    assert {"/calendar/", "/list/", "/forum/"} <= cut, report
    assert info["trapped"] > 0
