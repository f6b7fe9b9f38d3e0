"""Whole-blog crawls through two real Celery worker processes and a real Redis.

Each farm family is crawled end to end (feed discovery, the rule-learning chord,
traversal, extraction) and the records are scored with the eval harness's scorer
against the farm's ground truth.
"""
from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import score, wait_for
from tests.farm import FAMILIES
from tests.farm.server import FarmServer
from tests.farm.wordpress import WordPress

FAMILY_PARAMS = [pytest.param(f, marks=[pytest.mark.browser] if f == "spa" else []) for f in sorted(FAMILIES)]


@pytest.mark.parametrize("family", FAMILY_PARAMS)
@pytest.mark.parametrize("seed", [1, 2])
def test_crawl_finds_and_extracts_every_post(crawl, farm_blog, family, seed):
    site = farm_blog(family, seed=seed, n_posts=40)
    # the forum family hides its blog among thousands of pages: a page budget ends that crawl
    budget = {"max_pages": 400} if family == "forum" else {}
    info, records = crawl(site.url, js="auto", timeout=300, **budget)
    assert info["state"] == ("budget_exhausted" if budget else "done"), info
    s = score(site.truth, records)
    assert s["found"] >= 97 and s["precision"] >= 97, s
    assert s["title_exact"] >= 97, s
    assert s["content_f1"] >= 93, s
    assert s["date"] >= 95, s
    assert s["author"] >= 90, s
    # records are unique per post and carry the learned rules
    assert len({r["url"] for r in records}) == len(records)
    assert all(r["rules"]["content"] for r in records)


def test_knn_order_finds_forum_blog_posts_sooner_than_breadth_first(crawl, farm_blog):
    """The blog inside a large forum: with the same page budget, the kNN-ordered
    traversal holds more of the blog's posts than breadth-first order."""
    site = farm_blog("forum", seed=5, n_posts=40)
    budget = 120
    _, knn = crawl(site.url, max_pages=budget)
    site2 = farm_blog("forum", seed=5, n_posts=40)
    _, bfs = crawl(site2.url, max_pages=budget, order="bfs")
    found_knn = score(site.truth, knn)["found"]
    found_bfs = score(site2.truth, bfs)["found"]
    assert found_knn > found_bfs, (found_knn, found_bfs)


def test_crawl_by_a_plain_celery_client(workers, redis_server, state):
    """Another service enqueues by task name with JSON only, importing nothing of ours."""
    blog = WordPress(seed=3, n_posts=25)
    with FarmServer(blog) as site:
        client = textwrap.dedent(f"""
            import json, sys
            from celery import Celery
            app = Celery(broker={redis_server.url!r}, backend={redis_server.url!r})
            app.conf.task_serializer = "json"
            r = app.send_task("blogharvest.new_crawl", kwargs={{"url": {site.url!r}}})
            print(json.dumps({{"crawl_id": r.get(timeout=60)}}))
        """)
        out = subprocess.run([sys.executable, "-I", "-c", client], capture_output=True, text=True,
                             timeout=120, cwd="/")
        assert out.returncode == 0, out.stderr
        assert "workers" not in client and "tasks." not in client
        cid = json.loads(out.stdout)["crawl_id"]
        info = wait_for(lambda: (i := state.crawl_info(cid)) and i["state"] in ("done", "failed", "budget_exhausted") and i,
                        180, "the plain client's crawl")
        assert info["state"] == "done"
        assert score(blog.truth, state.crawl_records(cid))["found"] >= 97


def test_update_crawl_finds_only_new_posts(crawl):
    blog = WordPress(seed=4, n_posts=30)
    with FarmServer(blog) as site:
        first, records = crawl(site.url)
        assert first["state"] == "done" and len(records) == 30
        added = site.add_posts(3)
        since = min(p.published for p in added).date().isoformat()
        info, update = crawl(site.url, since=since)
    assert info["state"] == "done", info
    assert info["kind"] == "update"
    new_urls = {site.origin + p.path for p in added}
    assert {r["url"] for r in update} == new_urls


def test_update_crawl_relearns_rules_when_the_theme_changes(crawl, state):
    blog = WordPress(seed=6, n_posts=25, style="class")
    with FarmServer(blog) as site:
        first, _ = crawl(site.url)
        old = state.blog(first["crawl_id"])["rules"]
        # a new theme: every field in other markup
        blog.names = {"title": ("headline", "headline"), "content": ("article-text", "article-text"),
                      "author": ("byline-name", "byline-name"), "date": ("stamp", "stamp")}
        added = site.add_posts(2)
        info, update = crawl(site.url, since="2000-01-01")
    assert info["state"] == "done", info
    assert any(e["kind"] == "relearn" for e in info["error_report"])
    new = state.blog(info["crawl_id"])["rules"]
    assert "article-text" in new["content"]["rule"] and "article-text" not in old["content"]["rule"]
    truth = {site.origin + p.path: p for p in added}
    got = {r["url"]: r for r in update}
    assert set(truth) <= set(got)
    rows = [t for t in blog.truth if t["title"] in {p.title for p in added}]
    s = score(rows, [got[u] for u in truth])
    assert s["found"] == s["title_exact"] == s["content_f1"] == s["date"] == 100, s


def test_root_slug_posts_leave_out_undated_pages(crawl, state):
    """A Ghost-like blog whose posts sit at /<slug>/: the pattern takes in /about/ too, which
    lacks the date every post shows, so it is not a record; posts beyond the feed are."""
    from tests.farm import text as T
    from tests.httpd import LoopbackServer, Reply

    r = T.rng("ghost", 1)
    posts, titles = [], set()
    for i in range(8):
        title = T.title(r)
        while title in titles:
            title = T.title(r)
        titles.add(title)
        body = " ".join(T.sentence(r, "en") for _ in range(12))
        posts.append((T.slugify(title), title, body, f"2020-0{i % 9 + 1}-1{i % 9}"))

    def page(title, body, date=None):
        meta = f'<time class="post-date" datetime="{date}">{date}</time>' if date else ""
        return (f"<html><head><title>{title}</title></head><body><nav><a href='/'>Home</a> "
                f"<a href='/about/'>About</a></nav><article><h1 class='post-title'>{title}</h1>{meta}"
                f"<div class='post-content'><p>{body}</p></div></article></body></html>")

    routes = {"/about/": Reply(200, page("About me", "I write about walking and the sea. " * 30))}
    for slug, title, body, date in posts:
        routes[f"/{slug}/"] = Reply(200, page(title, body, date))
    with LoopbackServer(routes) as site:
        links = "".join(f"<li><a href='{site.url}{s}/'>{t}</a></li>" for s, t, _, _ in posts)
        routes["/"] = Reply(200, f"<html><head><link rel='alternate' type='application/rss+xml' href='/rss/'>"
                                 f"</head><body><a href='/about/'>About</a><ul>{links}</ul></body></html>")
        items = "".join(f"<item><title>{t}</title><link>{site.url}{s}/</link><pubDate>{d}T10:00:00Z</pubDate>"
                        f"<description><![CDATA[<p>{b}</p>]]></description></item>" for s, t, b, d in posts[:5])
        routes["/rss/"] = Reply(200, f"<rss version='2.0'><channel><title>x</title><link>{site.url}</link>"
                                     f"{items}</channel></rss>", content_type="application/rss+xml")
        info, records = crawl(site.url)
    assert info["state"] == "done", info
    from tasks.discover.urls import is_post

    assert is_post(site.url + "about/", state.blog(info["crawl_id"])["pattern"]), "the pattern is broad"
    assert {r["url"] for r in records} == {f"{site.url}{s}/" for s, _, _, _ in posts}
