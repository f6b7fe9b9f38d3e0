"""Crawls of blogs whose feed is missing, 404, excerpt-only or 3 entries long, through real
Celery workers and a real Redis (issue 18): training entries are made from the pages,
Algorithm 2 learns rules from them, and the records come from those rules."""
from __future__ import annotations

import pytest

from tests.conftest import score
from tests.farm.feedless import MODES


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("base", ["wordpress", "blogger", "static"])
def test_blog_with_feed_trouble_is_archived_by_rules(crawl, farm_blog, mode, base):
    site = farm_blog(mode, seed=3, n_posts=30, base=base)
    info, records = crawl(site.url, timeout=300)
    assert info["state"] == "done", info
    s = score(site.truth, records)
    assert s["found"] >= 95 and s["precision"] >= 95, s
    assert s["title_exact"] >= 95, s
    assert s["content_f1"] >= 90, s
    assert s["date"] >= 95, s
    # learned rules did the work, not the page-level fallback on every page
    by_rules = [r for r in records if r["extraction"] in ("rules", "rules+span")]
    assert len(by_rules) >= 0.9 * len(records), [r["extraction"] for r in records]
    assert all(r["rules"]["content"] for r in by_rules)
    if mode in ("nofeed", "brokenfeed"):
        assert any(e["kind"] == "feed" for e in info["error_report"])


def test_the_blogs_own_comment_feed_on_every_page_names_no_post(crawl, farm_blog):
    """Every page declares the blog's comment feed (/comments/feed/) before the post's own, as
    WordPress writes it, and the feeds answer 404: the candidates are still entered under their own URLs
    (not all under /comments/, one entry learning nothing) and the blog is archived by rules."""
    site = farm_blog("brokenfeed", seed=3, n_posts=30, base="wordpress", site_comment_feed=True)
    info, records = crawl(site.url, timeout=300)
    assert info["state"] == "done", info
    s = score(site.truth, records)
    assert s["found"] >= 95 and s["precision"] >= 95 and s["title_exact"] >= 95, s
    by_rules = [r for r in records if r["extraction"] in ("rules", "rules+span")]
    assert len(by_rules) >= 0.9 * len(records), [r["extraction"] for r in records]
    assert not any(r["url"].rstrip("/").endswith("/comments") for r in records)


def test_an_update_crawl_reads_the_candidates_that_may_be_new_first():
    """Training without a feed reads candidate pages; an update crawl reads those whose URL is
    not dated before `since` (read anyway as posts) and older ones only to make up MIN_ENTRIES."""
    import time

    from tasks.learn.pseudo_feed import MIN_ENTRIES
    from workers.learn.training import _read_candidates

    old = [f"http://b.example/2019/01/{d:02d}/old-{d}/" for d in range(1, 21)]
    new = [f"http://b.example/2020/05/{d:02d}/new-{d}/" for d in range(1, 4)]
    read = []
    _read_candidates(read.append, [], old + new, time.monotonic() + 60, since="2020-03-01")
    assert read[:3] == new and len(read) == MIN_ENTRIES and set(read[3:]) <= set(old)
    read.clear()
    _read_candidates(read.append, [], old + new, time.monotonic() + 60)  # a full crawl: in rank order
    assert read == (old + new)[:len(read)] and len(read) == len(old + new)


def test_an_update_crawl_takes_a_sitemaps_lastmod_before_since_for_an_old_candidate():
    """Undated URLs (a Hugo blog's /posts/slug/) that a sitemap says last changed before `since`
    are old: read only to make up MIN_ENTRIES, after the ones that may be new; those no source
    dates, too (aboraz-ar's update read four older posts through them)."""
    import time

    from tasks.learn.pseudo_feed import MIN_ENTRIES
    from workers.learn.training import _read_candidates

    old = [f"http://b.example/posts/old-{d}/" for d in range(1, 21)]
    new = [f"http://b.example/posts/new-{d}/" for d in range(1, 4)]
    days = {u: "2017-01-10" for u in old} | {u: "2020-05-01" for u in new}
    read = []
    _read_candidates(read.append, [], old + new, time.monotonic() + 60, since="2020-03-01", days=days)
    assert read[:3] == new and len(read) == MIN_ENTRIES and set(read[3:]) <= set(old)
    read.clear()
    # no days known: any of them may be an older post, read only to make up MIN_ENTRIES, in rank order
    _read_candidates(read.append, [], old + new, time.monotonic() + 60, since="2020-03-01")
    assert read == (old + new)[:MIN_ENTRIES]
    read.clear()
    known = [f"http://b.example/posts/feed-{d}/" for d in range(1, 7)]  # the feed's posts, read first
    _read_candidates(read.append, known, old + new, time.monotonic() + 60, since="2020-03-01")
    assert read == known + (old + new)[:MIN_ENTRIES - len(known)]


def _home_of(n_posts: int, day: int = 1):
    from tasks.fetch.page import Page

    items = "".join(f'<article><h2><a href="/2020/05/{d:02d}/post-number-{d}/">A post called {d}</a></h2>'
                    f'<a href="/2020/05/{d:02d}/post-number-{d}/photo-{d}/"><img src="/p{d}.jpg"></a></article>'
                    for d in range(day, day + n_posts))
    html = (f"<html><body><main>{items}</main><a href='/page/2/'>Older posts</a>"
            "<aside><a href='/2020/05/'>May 2020</a><a href='/2020/04/'>April 2020</a></aside></body></html>")
    return Page.from_cached({"url": "http://b.example/", "html": html})


def test_an_update_crawl_reads_no_listing_for_candidates_once_the_home_dates_enough_new_ones(monkeypatch):
    """Training without a usable feed looks for candidate posts on the home page and the
    listings it links (page 2, month archives). An update crawl whose home page already links
    MIN_ENTRIES posts dated after since by their URLs reads no listing for more (those are its
    new posts, read anyway); a full crawl reads the listings. An image's own page below a post
    is never a candidate (it is part of that post)."""
    import time

    from tasks.learn.pseudo_feed import MIN_ENTRIES
    from workers.learn import training

    asked = []
    monkeypatch.setattr(training, "_html_page", lambda rt, cid, url: asked.append(url))
    monkeypatch.setattr(training, "_extra", lambda *a: ([], {}))
    home = _home_of(MIN_ENTRIES)
    ranked, _, _ = training._candidate_urls(None, "c", "http://b.example/", home, [], time.monotonic() + 60,
                                            since="2020-03-01")
    assert asked == []
    assert len(ranked) >= MIN_ENTRIES and not [u for u in ranked if "/photo-" in u], ranked
    training._candidate_urls(None, "c", "http://b.example/", home, [], time.monotonic() + 60)  # a full crawl
    assert "http://b.example/page/2/" in asked and len(asked) >= 3, asked
    asked.clear()
    # too few new ones on the home page: the listings are read for more
    training._candidate_urls(None, "c", "http://b.example/", _home_of(MIN_ENTRIES - 3), [], time.monotonic() + 60,
                             since="2020-03-01")
    assert "http://b.example/page/2/" in asked, asked
