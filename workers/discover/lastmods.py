"""What a sitemap's lastmods say of pages in an update crawl (issue 35).

A lastmod after `since` names a page that may be a new or changed post; one build's time on
every page (tasks.discover.sitemaps.stamped) says nothing of any. Kept per crawl, so that the
page is named whichever link found it first (a post's neighbour link, before the sitemap):

    stamped(rt, crawl_id, urls)     pages a sitemap names with a build's stamp (`crawl:C:stamped`)
    changed(rt, crawl_id, urls)     pages a sitemap dates after since (`crawl:C:changed`)
    named(rt, crawl_id, url, ctx)   is the page named by a lastmod after since?
"""
from __future__ import annotations

from workers.discover import proof
from workers.keys import Keys


def stamped(rt, crawl_id: str, urls: list[str]) -> None:
    """Pages found by a sitemap whose lastmods are one build's time (tasks.discover.sitemaps.stamped):
    the sitemap names them, but says nothing of whether they changed."""
    rt.state.add_kept(f"{Keys(crawl_id).crawl}:stamped", urls)


def changed(rt, crawl_id: str, urls: list[str]) -> None:
    """Pages a sitemap dates after since by their lastmods (not a build's stamp): they may be new
    posts, whichever page led to them first (a post's neighbour link, before the sitemap)."""
    rt.state.add_kept(f"{Keys(crawl_id).crawl}:changed", urls)


def named(rt, crawl_id: str, url: str, ctx: dict) -> bool:
    """Named by a sitemap whose lastmod for it is after since (and not a build's stamp). Where a
    sitemap proves every new post known (it dates every post), a page it gives no lastmod (its
    about page) is named by nothing."""
    r, k = rt.state.r, Keys(crawl_id).crawl
    if r.sismember(f"{k}:changed", url):
        return True
    return ctx.get("source") == "sitemap" and not r.sismember(f"{k}:stamped", url) \
        and r.hget(k, "covered") != proof.SITEMAP_COVER
