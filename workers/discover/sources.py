"""Discovery sources of a crawl beyond links: sitemaps (issue 15).

Sitemaps are pages of the traversal like any other: queued with the seeds, fetched by
whichever worker pops them, through the one downloader (robots.txt, politeness, the
private-address guard, the page size cap). A sitemap index queues its sitemaps; a urlset
queues its pages (posts first, by the blog's patterns), each remembered as found by
the sitemap. The usual paths are guesses: a guess that fails is no error of the blog's,
and the next guess is tried only then (one request when the first one is there); a guess
that failed already in this crawl (learning read the sitemaps for candidates) is not asked
again (`missing`).
"""
from __future__ import annotations

import json
import logging

from tasks.discover import sitemaps as sm
from tasks.discover.canonical import fold_to_home, is_listing
from tasks.discover.traversal import SEED_PRIORITY, in_scope
from tasks.discover.urls import canonical, same_site
from tasks.fetch.http import FetchError
from tasks.discover.recency import day_before, day_of, older, series
from tasks.text.dates import url_latest_day
from workers.discover import lastmods, proof, update
from workers.fetch.pages import cached
from workers.state import Keys

log = logging.getLogger("blogharvest")

MAX_SITEMAPS = 200  # sitemap files read per crawl (indexes of indexes stop here)


def seed(rt, crawl_id: str, home: str) -> int:
    """Queue the blog's sitemaps: robots.txt's Sitemap lines, else the first usual path."""
    try:
        robots = rt.downloader.robots(home)
        text = getattr(robots, "text", "") or ""
    except Exception as e:  # robots.txt is the downloader's business; without it, guess
        log.debug("robots.txt of %s unreadable for sitemaps: %s", home, e)
        text = ""
    page = cached(rt, crawl_id, home)
    declared = sm.declared_sitemaps(page.root, page.final_url) if page is not None and not page.garbled else []
    found = [(canonical(u), g) for u, g in sm.candidates(home, text, declared) if same_site(u, home)]
    if not found:
        return 0
    named = [u for u, g in found if not g]
    if named:
        metas = {u: {"guessed": False, "next": []} for u in named}
    else:
        gone = rt.state.r.smembers(missing_key(crawl_id))
        if rt.state.options(crawl_id).get("update"):  # issue 35: missing at the blog's last crawls too
            gone |= rt.state.r.smembers(rt.keys(crawl_id).no_sitemap)
        guesses = [u for u, _ in found if u not in gone]
        if not guesses:
            return 0
        metas = {guesses[0]: {"guessed": True, "next": guesses[1:]}}
    return _queue(rt, crawl_id, metas)


def missing_key(crawl_id: str) -> str:
    """set: sitemap URLs this crawl found missing (not there, or no sitemap)."""
    return f"{Keys(crawl_id).crawl}:no_sitemap"


MISSING_TTL = 30 * 86400  # how long a blog's usual sitemap paths found missing are not asked again by its updates


def note_missing(rt, crawl_id: str, url: str) -> None:
    """A sitemap URL that answered with no sitemap (not a transient failure): not asked again in
    this crawl, nor by the blog's update crawls for MISSING_TTL (a full crawl asks again)."""
    u = canonical(url)
    with rt.state.r.pipeline(transaction=False) as p:
        p.sadd(missing_key(crawl_id), u)
        p.sadd(rt.keys(crawl_id).no_sitemap, u)
        p.expire(rt.keys(crawl_id).no_sitemap, MISSING_TTL)
        p.execute()


KEPT = "sitemap:"  # prefix of a sitemap's parse kept in the crawl's page cache by learning


def keep_sitemap(rt, crawl_id: str, url: str, data: dict) -> None:
    """A sitemap learning read (its candidates), kept parsed for the traversal's reading of it:
    the blog is asked once for it in a crawl."""
    rt.state.cache_page(crawl_id, KEPT + canonical(url), {"url": url, "sitemap": data})


def _kept(rt, crawl_id: str, url: str) -> dict | None:
    """The parse of a sitemap learning read in this crawl (taken: kept for one reading), or None."""
    key = KEPT + canonical(url)
    got = rt.state.cached_page(crawl_id, key)
    if got is None or not isinstance(got.get("sitemap"), dict):
        return None
    rt.state.r.hdel(rt.keys(crawl_id).pages, key)
    return got["sitemap"]


def _queue(rt, crawl_id: str, metas: dict[str, dict]) -> int:
    st = rt.state
    if st.r.hlen(rt.keys(crawl_id).sitemaps) >= MAX_SITEMAPS:
        return 0
    fresh = st.add_sitemaps(crawl_id, metas)
    if fresh:
        st.enqueue(crawl_id, {u: SEED_PRIORITY for u in fresh})
    return len(fresh)


def _listing(url: str, home: str) -> bool:
    """A page a sitemap may list that is no post: the home page, a tag's, a category's, a
    numbered or a date archive page (a sitemap often gives these no lastmod: none is needed)."""
    return is_listing(url, home) or series(url) is not None


MIN_FEED_POSTS = 3  # feed entries a sitemap must list, with their lastmods, to be known current


def _after_feed(rt, crawl_id: str, urls: list[dict], home: str) -> bool:
    """Was the sitemap (`urls`: its pages, every post dated) made after the feed's newest post:
    does it list each of the feed's posts (MIN_FEED_POSTS at least) with a lastmod no earlier than
    the post's day? Then a post newer than `since` is in the feed, or in it with a lastmod after
    `since` (a page changes after it is published). Not a build's stamp for every page (nothing
    of the pages themselves), nor a file cut at MAX_URLS (its newest pages may be left out)."""
    if len(urls) >= sm.MAX_URLS or sm.stamped([e for e in urls if e.get("lastmod")]):
        return False
    entries = [e for e in map(json.loads, rt.state.r.hvals(Keys(crawl_id).entries) or []) if not e.get("pseudo")]
    if len(entries) < MIN_FEED_POSTS:
        return False
    lastmod = {fold_to_home(canonical(e["url"]), home): (e.get("lastmod") or "")[:10] for e in urls}
    for e in entries:
        day = (e.get("published") or e.get("updated") or "")[:10]
        mod = lastmod.get(fold_to_home(canonical(e.get("url") or ""), home))
        if not mod or (day_of(day) and mod < day_before(day)):  # (a zone's day: a UTC lastmod)
            return False
    return True


def process(rt, crawl_id: str, url: str, meta: dict, ctx: dict, queue_links) -> dict:
    """Read one sitemap (popped from the frontier): queue what it lists."""
    st = rt.state
    home = ctx["blog"]["home"]
    guessed = bool(meta.get("guessed"))
    since = update.since_of(ctx)
    changed_since = ctx.get("since") if ctx["options"].get("update") else None  # lastmod: changes, any update
    try:
        data = _kept(rt, crawl_id, url)
        if data is None:
            resp = rt.downloader.get(url, conditional=bool(ctx["options"].get("update")))
            if resp.status == 304:  # unchanged since an earlier crawl: what it lists was read then
                update.skip(rt, crawl_id, "unchanged", [url])
                st.mark_done(crawl_id, url)
                return {"url": url, "sitemap": "unchanged"}
            data = sm.parse_sitemap(resp.content, resp.url, max_bytes=max(rt.settings.max_page_bytes, 1))
    except (FetchError, sm.SitemapError) as e:
        transient = isinstance(e, FetchError) and e.transient
        if transient:
            raise  # retried like any page
        if guessed:  # the blog has no sitemap there: try the next usual path, report nothing
            note_missing(rt, crawl_id, url)
            nxt = list(meta.get("next") or [])
            if nxt:
                _queue(rt, crawl_id, {nxt[0]: {"guessed": True, "next": nxt[1:]}})
        else:
            st.add_error(crawl_id, url, "sitemap", str(e))
        st.mark_done(crawl_id, url)
        return {"url": url, "sitemap": "error"}
    if guessed:  # there after all (a full crawl asks every usual path again)
        st.r.srem(rt.keys(crawl_id).no_sitemap, canonical(url))
    nested, left = {}, []
    for e in data["sitemaps"]:
        u = canonical(e["url"])
        if same_site(u, home):
            if changed_since and sm.older_than(e.get("lastmod"), changed_since):
                left.append(u)
            else:
                nested[u] = {"guessed": False, "next": [], "nested": True}
    update.skip(rt, crawl_id, "sitemap_lastmod", left)
    if nested:
        _queue(rt, crawl_id, nested)
    pages, skipped, dated, by_url, postlike, changed = [], [], 0, [], 0, set()
    for e in data["urls"]:
        u = fold_to_home(canonical(e["url"]), home)
        if not in_scope(u, home):
            continue
        if not _listing(u, home):  # (a tag's or a numbered page's lastmod dates no post)
            postlike += 1
            dated += bool(e.get("lastmod"))
        if changed_since and sm.older_than(e.get("lastmod"), changed_since):
            skipped.append(u)  # update_crawl: unchanged since `since`, by the sitemap's word
            continue
        if since and (not e.get("lastmod") or not ctx["options"].get("scheduled")) and older(url_latest_day(u), since):
            # update_crawl: a post whose URL is dated before `since` (its record would be out of
            # the window, whatever a lastmod says; a scheduled update reads a changed one)
            by_url.append(u)
            continue
        pages.append(u)
        if e.get("lastmod"):
            changed.add(u)
    pages = list(dict.fromkeys(pages))
    update.skip(rt, crawl_id, "sitemap_lastmod", skipped)
    if since:
        update.skip(rt, crawl_id, "url_date", by_url)
        if not sm.stamped(data["urls"]):  # (named by its lastmod as changed: before the cover below)
            lastmods.changed(rt, crawl_id, [u for u in pages if u in changed])
        if postlike and dated * 10 >= postlike * 9:  # every page that may be a post with its lastmod
            current = not meta.get("nested") and _after_feed(rt, crawl_id, data["urls"], home)
            update.cover(rt, crawl_id, proof.SITEMAP_COVER if current else "a sitemap giving every page's lastmod")
    fresh = st.unseen(crawl_id, pages)
    st.mark_sources(crawl_id, fresh, "sitemap")  # first finder only
    if since and fresh and sm.stamped(data["urls"]):  # its lastmods are a build's time: they vouch for nothing
        lastmods.stamped(rt, crawl_id, fresh)
    queue_links(pages)
    st.mark_done(crawl_id, url, counted=True)
    return {"url": url, "sitemap": data["kind"], "listed": len(pages), "nested": len(nested),
            "skipped_lastmod": len(skipped)}
