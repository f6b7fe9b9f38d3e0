"""Every fault of the farm through a real crawl: a clear entry in the crawl's error report for
what cannot be had, the record for what a retry or a careful decoder can save, and the
crawl goes on to the end.

The crawls run on a private cluster (tests/workers/cluster.py) whose workers have tight
limits, so timeouts and size limits trip in a test's time: BLOGHARVEST_REQUEST_TIMEOUT=1.5 s
per request, BLOGHARVEST_MAX_PAGE_BYTES=1 MB.
"""
from __future__ import annotations

import pytest

from tests.farm.faults import fault
from tests.farm.server import FarmServer
from tests.farm.wordpress import WordPress
from tests.workers.cluster import Cluster
from tests.workers.report import note
from workers.state import Keys

LIMITS = {"BLOGHARVEST_REQUEST_TIMEOUT": "1.5", "BLOGHARVEST_MAX_PAGE_BYTES": "1000000",
          "BLOGHARVEST_STALE_AFTER": "60"}
DEPTH = 5000


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    c = Cluster(tmp_path_factory.mktemp("faults"), n=2, concurrency=4, env=LIMITS).start()
    yield c
    c.stop()


class DeepFarm(FarmServer):
    """A farm server that can also bury a page's content under thousands of nested elements."""

    deep: set = set()

    def render(self, target):
        rep = super().render(target)
        if rep is not None and target in self.deep:
            body = rep.encoded().decode("utf-8")
            at = body.find("</body>")
            body = body[:at] + "<div>" * DEPTH + "bottom" + "</div>" * DEPTH + body[at:]
            rep = type(rep)(rep.status, body, dict(rep.headers), rep.content_type)
        return rep


# post index -> (fault, what the crawl must do: ("error", kind, message part) or ("record", None, None))
PAGE_FAULTS = {
    0: (fault("slow", seconds=4), ("error", "timeout", "within 1.5 s")),
    1: (fault("slow", seconds=4, times=1), ("record", None, None)),
    2: (fault("503", retry_after=1), ("error", "http_status", "HTTP 503")),
    3: (fault("503", retry_after=1, times=1), ("record", None, None)),
    4: (fault("429", retry_after=1, times=2), ("record", None, None)),
    5: (fault("500"), ("error", "http_status", "HTTP 500")),
    6: (fault("404"), ("error", "http_status", "HTTP 404")),
    7: (fault("redirect_loop"), ("error", "redirect_loop", "redirect loop")),
    8: (fault("redirect_chain", hops=4), ("record", None, None)),
    9: (fault("wrong_charset", charset="iso-8859-1"), ("record", None, None)),
    10: (fault("missing_charset"), ("record", None, None)),
    11: (fault("binary_html", size=20000), ("error", "not_html", "not an HTML page")),
    12: (fault("huge", size=3_000_000), ("error", "too_large", "exceeds 1000000 bytes")),
    13: (fault("disallow"), ("error", "robots", "robots.txt")),
    14: (None, ("record", None, None)),  # deep nesting (DeepFarm)
}
DESCRIBE = {0: "timeout (body after 4 s, limit 1.5 s)", 1: "timeout once, then normal",
            2: "503 + Retry-After: 1, always", 3: "503 + Retry-After: 1, once", 4: "429 + Retry-After: 1, twice",
            5: "500 always", 6: "404", 7: "redirect loop", 8: "4 redirects", 9: "charset lie (UTF-8 sent as iso-8859-1)",
            10: "no charset anywhere", 11: "binary served as text/html", 12: "3 MB page (limit 1 MB)",
            13: "robots.txt disallows the post", 14: f"content under {DEPTH} nested <div>s"}


def test_every_page_fault_reported_and_the_crawl_goes_on(cluster):
    blog = WordPress(seed=21, n_posts=30, feed_size=8, lang="fr")
    posts = blog.posts  # oldest first; the paged feed lists them all, so learning meets the faults too
    faults = {posts[i].path: f for i, (f, _) in PAGE_FAULTS.items() if f is not None}
    DeepFarm.deep = {posts[14].path}
    with DeepFarm(blog, faults) as site:
        info, records = cluster.crawl(site.url, timeout=120, js="never")
        hits = dict(site.hits)
    assert info["state"] == "done", info
    by_url = {r["url"]: r for r in records}
    errors = info["error_report"]
    for i, (_, (want, kind, words)) in PAGE_FAULTS.items():
        url = site.origin + posts[i].path
        mine = [e for e in errors if e["url"] == url]
        if want == "record":
            r = by_url.get(url)
            assert r is not None, (DESCRIBE[i], mine)
            assert r["title"] == posts[i].title, (DESCRIBE[i], r["title"])
            assert posts[i].text[:200] in r["content_text"], DESCRIBE[i]
            observed = f"record, title and content exact; {hits.get(posts[i].path, 0)} requests"
        else:
            assert url not in by_url, DESCRIBE[i]
            assert any(e["kind"] == kind and words in e["message"] for e in mine), (DESCRIBE[i], mine)
            e = next(e for e in mine if e["kind"] == kind)
            observed = f"report: {e['kind']}: {e['message'][:90]}"
        note(f"fault: {DESCRIBE[i]}", f"post {i} of a 30-post WordPress blog served so, crawled whole",
             "record saved" if want == "record" else f"error `{kind}` in the report, no record", observed)
    # the crawl went on: every post without a fatal fault is in the output
    fatal = {site.origin + posts[i].path for i, (_, (w, _, _)) in PAGE_FAULTS.items() if w == "error"}
    assert set(by_url) == {site.origin + p.path for p in posts} - fatal
    # retried as the server asked, and not more: the transient faults cost one or two extra requests
    assert hits[posts[3].path] == 2 and hits[posts[4].path] == 3
    assert hits.get(posts[13].path, 0) == 0, "a disallowed page was fetched"
    note("faults together", "15 faulted posts in one crawl", "crawl done, the other posts all saved",
         f"state {info['state']}, {len(records)} records of 30, {len(errors)} report entries")


@pytest.mark.parametrize("kind", ["malformed", "truncated"])
def test_broken_main_feed_reported_and_the_blog_still_crawled(cluster, kind):
    blog = WordPress(seed=22, n_posts=20, feed_size=10, full_feed=True)
    f = fault("truncated", fraction=0.6) if kind == "truncated" else fault("malformed")
    with FarmServer(blog, {"/feed/": f}) as site:
        info, records = cluster.crawl(site.url, timeout=90, js="never")
    assert info["state"] == "done", info
    feed_errors = [e for e in info["error_report"] if e["kind"] == "feed"]
    # reported; read partly, or (issue 19) skipped for a clean candidate (WordPress serves /feed too)
    assert feed_errors and "malformed feed" in feed_errors[0]["message"], info["error_report"]
    assert {r["url"] for r in records} == {site.origin + p.path for p in blog.posts}
    note(f"feed fault: {kind} main feed", f"/feed/ served {kind}, 20-post blog",
         "feed problem in the report; entries read; every post still crawled",
         f"report: {feed_errors[0]['message'][:80]}; {len(records)}/20 posts")


def test_home_page_down_fails_the_crawl_with_its_reason(cluster):
    blog = WordPress(seed=23, n_posts=10)
    with FarmServer(blog, {"/": "500"}) as site:
        info, records = cluster.crawl(site.url, timeout=60, js="never")
    assert info["state"] == "failed" and records == []
    assert "home page unreachable" in info["message"] and "HTTP 500" in info["message"], info
    note("home page down", "home page always 500", "crawl failed, reason given", info["message"][:100])


def test_pages_per_blog_limit(cluster):
    blog = WordPress(seed=24, n_posts=40, feed_size=10)
    with FarmServer(blog) as site:
        info, records = cluster.crawl(site.url, timeout=60, js="never", max_pages=12)
        fetched = sum(n for t, n in site.hits.items() if not t.startswith(("/robots.txt", "/feed")))
    assert info["state"] == "budget_exhausted", info  # not plain "done": pages were left queued
    handed = int(cluster.state.r.hget(Keys(info["crawl_id"]).crawl, "handed"))
    assert handed <= 12 and info["pages"] <= 12 and len(records) <= 12, info
    # the limit is on the traversal; rule learning fetches up to MAX_TRAINING feed entries besides
    note("limit: pages per blog", "crawl option max_pages=12 on a 40-post blog",
         "at most 12 pages traversed, crawl budget_exhausted",
         f"{handed} pages handed out, {len(records)} records; {fetched} requests in all (learning included)")


def test_transient_faults_retried_on_pages_a_task_went_on_to(tmp_path):
    """One page in flight, one worker thread: each task goes on to the next page itself
    (workers/crawl.py), so a fault meets a page that no broker message carries; its retry
    is a new message with the retry count carried on, as the server asked and not more."""
    blog = WordPress(seed=25, n_posts=14, feed_size=4)
    posts = blog.posts  # oldest first; the paged feed lists them all, so learning fetches each once
    faults = {posts[1].path: fault("503", retry_after=1, times=1), posts[2].path: fault("429", retry_after=1, times=2),
              posts[3].path: fault("503", retry_after=1)}
    c = Cluster(tmp_path, n=1, concurrency=1, env=dict(LIMITS, BLOGHARVEST_CRAWL_PARALLELISM="1")).start()
    try:
        with FarmServer(blog, faults) as site:
            info, records = c.crawl(site.url, timeout=120, js="never")
            hits = dict(site.hits)
    finally:
        c.stop()
    assert info["state"] == "done", info
    assert {r["url"] for r in records} == {site.origin + p.path for p in posts} - {site.origin + posts[3].path}
    # learning's one request, then the traversal's: 1 + 3 retries for the page that stays down
    assert (hits[posts[1].path], hits[posts[2].path], hits[posts[3].path]) == (2, 3, 5)
    mine = [e for e in info["error_report"] if e["url"] == site.origin + posts[3].path]
    assert mine and all(e["kind"] == "http_status" and "HTTP 503" in e["message"] for e in mine), mine
