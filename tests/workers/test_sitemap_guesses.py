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


def test_a_sitemap_listing_the_feeds_posts_with_their_lastmods_proves_every_new_post_known(rt):
    """A sitemap that dates every post and lists each of the feed's posts (its newest among them)
    with a lastmod no earlier than its day was made after the feed's newest post: a post after
    since is in the feed, or in the sitemap with a lastmod after since. Every new post known (a
    proof: the home's numbered pages are not read). One that misses a post of the feed, or whose
    lastmods are one build's stamp, covers without proving."""
    import json

    from workers.discover import proof
    from workers.keys import Keys

    home = "http://sitemap-proof.example/"
    feed = [{"url": f"{home}post-{i}/", "published": f"2020-06-{10 + i:02d}T10:00:00+02:00"} for i in range(5)]
    dated = [{"url": e["url"], "lastmod": e["published"][:10] + "T08:00:00+00:00"} for e in feed] + \
            [{"url": f"{home}old-{i}/", "lastmod": f"2019-0{1 + i}-10T10:00:00+00:00"} for i in range(6)]
    listings = [{"url": f"{home}category/c{i}/", "lastmod": None} for i in range(3)]

    def covered(urls, entries=feed, nested=False):
        cid = rt.state.create_crawl(home, "2020-03-01", {"update": True})
        rt.state.r.hset(Keys(cid).entries, mapping={e["url"]: json.dumps(e) for e in entries})
        ctx = {"options": {"update": True}, "since": "2020-03-01", "blog": {"home": home}, "entry": None}
        url = f"{home}sitemap.xml"
        sources.keep_sitemap(rt, cid, url, {"kind": "urlset", "urls": urls, "sitemaps": []})
        sources.process(rt, cid, url, {"guessed": False, "next": [], "nested": nested}, ctx, lambda pages: None)
        return rt.state.r.hget(Keys(cid).crawl, "covered")

    assert covered(dated + listings) == proof.SITEMAP_COVER and proof.SITEMAP_COVER in proof.PROVEN
    assert covered(dated[1:] + listings) == "a sitemap giving every page's lastmod"  # the newest post missing
    assert covered(dated + listings, entries=feed[:2]) == "a sitemap giving every page's lastmod"  # too few to tell
    assert covered(dated + listings, nested=True) == "a sitemap giving every page's lastmod"  # one of several files
    stamp = [dict(e, lastmod="2021-01-01T00:00:00+00:00") for e in dated]
    assert covered(stamp + listings) == "a sitemap giving every page's lastmod"
    early = [dict(e, lastmod="2020-06-01T00:00:00+00:00") if e["url"] == feed[-1]["url"] else e for e in dated]
    assert covered(early + listings) == "a sitemap giving every page's lastmod"  # made before the feed's newest


def test_a_page_a_sitemap_dates_after_since_may_be_new_whichever_link_found_it_first(rt):
    """A post a neighbour's link queued before the sitemap was read is named by the sitemap's
    lastmod all the same (serdarkuzucu-tr lost 9 new posts to a proof that every new post is
    known while only the sitemap's first finds counted as named)."""
    from workers.discover import lastmods

    home = "http://sitemap-changed.example/"
    cid = rt.state.create_crawl(home, "2020-03-01", {"update": True})
    ctx = {"options": {"update": True}, "since": "2020-03-01", "blog": {"home": home}, "entry": None}
    new, old = f"{home}new-post/", f"{home}old-post/"
    rt.state.unseen(cid, [new, old])  # queued by links first
    url = f"{home}sitemap.xml"
    sources.keep_sitemap(rt, cid, url, {"kind": "urlset", "sitemaps": [], "urls": [
        {"url": new, "lastmod": "2020-05-01T10:00:00+00:00"}, {"url": old, "lastmod": "2019-05-01T10:00:00+00:00"}]})
    sources.process(rt, cid, url, {"guessed": False, "next": []}, ctx, lambda pages: None)
    assert lastmods.named(rt, cid, new, dict(ctx, source="link"))
    assert not lastmods.named(rt, cid, old, dict(ctx, source="link"))
