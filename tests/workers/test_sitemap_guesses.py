"""The usual sitemap paths a blog's crawl found missing are not asked again by its update crawls
on the same Redis (workers/discover/sources.py, issue 35: a second update of a blog with no
sitemap asks its home page and feed only); a full crawl asks again."""
from __future__ import annotations

from tasks.discover import sitemaps as sm
from tests.conftest import _free_port
from workers.discover import sources


def test_missing_sitemap_guesses_are_left_by_the_next_update_crawl_not_by_a_full_one(rt):
    home = f"http://127.0.0.1:{_free_port()}/"  # nothing listens: no robots.txt, no home page cached
    first = rt.state.create_crawl(home, None, {"update": True})
    guesses = [u for u, guessed in sm.candidates(home, "", []) if guessed]
    assert len(guesses) >= 2
    for u in guesses:
        sources.note_missing(rt, first, u)
    update = rt.state.create_crawl(home, "2020-01-01", {"update": True})
    assert sources.seed(rt, update, home) == 0
    full = rt.state.create_crawl(home, None, {})
    assert sources.seed(rt, full, home) == 1  # the first usual path, the others after it


def test_a_sitemap_dating_every_post_covers_the_new_posts_though_its_listings_have_no_lastmod(rt):
    """A sitemap that gives every post its lastmod, and its category and numbered pages none (as
    static generators write them): its lastmods name every post changed after since, so the other
    listings are not needed (serdarkuzucu-tr read two listing pages besides). A sitemap leaving
    posts undated covers nothing."""
    from workers.keys import Keys

    home = "http://sitemap-cover.example/"
    posts = [{"url": f"{home}post-{i}/", "lastmod": f"2020-0{1 + i % 6}-10T10:00:00+00:00"} for i in range(12)]
    listings = [{"url": f"{home}category/c{i}/", "lastmod": None} for i in range(8)] + \
               [{"url": f"{home}p/{n}/", "lastmod": None} for n in (2, 3)] + [{"url": home, "lastmod": None}]

    def read(entries) -> str | None:
        cid = rt.state.create_crawl(home, "2020-03-01", {"update": True})
        ctx = {"options": {"update": True}, "since": "2020-03-01", "blog": {"home": home}, "entry": None}
        url = f"{home}sitemap.xml"
        sources.keep_sitemap(rt, cid, url, {"kind": "urlset", "urls": entries, "sitemaps": []})
        sources.process(rt, cid, url, {"guessed": False, "next": []}, ctx, lambda pages: None)
        return rt.state.r.hget(Keys(cid).crawl, "covered")

    assert read(posts + listings) == "a sitemap giving every page's lastmod"
    assert read([dict(e, lastmod=None) if i % 3 == 0 else e for i, e in enumerate(posts)] + listings) is None
