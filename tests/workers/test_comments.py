"""workers.comments on a real Redis and a farm WordPress blog served over loopback: every
post's comments (feed, overflow learned on the page and its comment pages, the blog's rule
reused on posts beyond the feed)."""
from __future__ import annotations

import datetime as dt

import pytest

from tasks.feeds import parse_feed
from tasks.html import parse_html
from tasks.similarity import normalize_text
from workers import comments

wordpress = pytest.importorskip("tests.farm.wordpress")
from tests.farm.server import FarmServer  # noqa: E402


@pytest.fixture(scope="module")
def farm():
    blog = wordpress.WordPress(seed=3, n_posts=14, feed_size=8, comment_feed_size=4, comments_per_page=5)
    with FarmServer(blog) as srv:
        yield srv


@pytest.fixture
def rt(redis_server):
    from workers.runtime import runtime

    return runtime()


def _same_instant(a: str | None, b: dt.datetime) -> bool:
    return bool(a) and dt.datetime.fromisoformat(a) == b


def test_every_comment_of_a_farm_blog_with_author_date_and_text(rt, farm):
    cid = rt.state.create_crawl(farm.url, None, {"js": "never"})
    feed = parse_feed(rt.downloader.get(farm.origin + "/feed/").content, farm.origin + "/feed/")
    entries = {e["url"]: e for e in feed["entries"]}
    assert any((e["comment_count"] or 0) > 4 for e in entries.values())  # the feeds overflow
    total = good = 0
    for post in reversed(farm.blog.posts):  # newest first: feed posts come before the others
        url = farm.origin + post.path
        resp = rt.downloader.get(url)
        page = {"url": resp.url, "html": resp.text}
        got = comments.comments_for(rt, cid, url, entries.get(url), page, parse_html(resp.text, resp.url))
        found = {(c["author"], normalize_text(c["content_text"])): c for c in got}
        for c in post.comments:
            total += 1
            hit = found.get((c.author, normalize_text(c.text)))
            good += bool(hit and _same_instant(hit["published"], c.published))
        assert len(got) == len(post.comments)  # no duplicates from comment-page-1/
    assert total > 40
    assert good / total >= 0.98, f"{good}/{total}"
    rule = rt.state.blog(cid)["comment_rules"]
    assert rule["container"] and rule["text"] and rule["author"] and rule["date"]


def test_rule_is_learned_once_and_reused(rt, farm):
    cid = rt.state.create_crawl(farm.url, None, {"js": "never"})
    post = max(farm.blog.posts[:6], key=lambda p: len(p.comments))  # an old post, beyond the feed
    url = farm.origin + post.path
    resp = rt.downloader.get(url)
    root = parse_html(resp.text, resp.url)
    feed_hits = farm.hits[post.path + "feed/"]
    got = comments.comments_for(rt, cid, url, None, {"url": resp.url, "html": resp.text}, root)
    assert farm.hits[post.path + "feed/"] == feed_hits + 1  # found by the page's comment-feed link
    learned = rt.state.blog(cid)["comment_rules"]
    assert len(got) == len(post.comments)
    # a second post: the stored rule reads it; nothing is re-learned
    other = max((p for p in farm.blog.posts[:6] if p is not post), key=lambda p: len(p.comments))
    url2 = farm.origin + other.path
    resp2 = rt.downloader.get(url2)
    got2 = comments.comments_for(rt, cid, url2, None, {"url": resp2.url, "html": resp2.text},
                                 parse_html(resp2.text, resp2.url))
    assert rt.state.blog(cid)["comment_rules"] == learned
    assert {c["author"] for c in got2} == {c.author for c in other.comments}
