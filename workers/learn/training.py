"""Training entries when the feed does not give enough: the steps between tasks.learn.pseudo_feed
and the crawl's state (fetching candidate pages politely, caching them for the learning chord).

    need = training_need(feed entries)     "none" | "excerpt" | "short" | None
    entries = training_entries(rt, crawl_id, home_url, home_page, entries, need)

The result goes to the same learning chord, traversal and records as a feed's entries.

Hook for other discovery sources (sitemaps): append a callable
`source(rt, crawl_id, home_url, home_html) -> list[str]` to CANDIDATE_SOURCES; its URLs
are ranked with the links of the home page and listings (by URL shape) and may be
fetched as candidates. A source that fails is reported and skipped.
"""
from __future__ import annotations

import json
import logging
import time
from typing import Callable

from tasks.discover.candidates import (comment_feeds, declared_permalink, feed_section, listing_links, navigation_links,
                                       page_links, rank_candidates, sitewide)
from tasks.discover.canonical import is_listing, under_post
from tasks.discover.recency import older
from tasks.discover.traversal import feed_links, in_scope
from tasks.discover.urls import canonical
from tasks.fetch.http import FetchError
from tasks.fetch.page import Page
from tasks.learn.pseudo_feed import MIN_ENTRIES, checked_by_feed, enrich_excerpt, page_facts, pseudo_entries
from tasks.text.dates import url_latest_day
from workers.extract import listed_days
from workers.fetch import rendering
from workers.fetch.pages import page_at
from workers.fetch.patience import REMEMBER_TTL
from workers.state import Keys

log = logging.getLogger("blogharvest")

# (rt, crawl_id, home_url, home_html) -> [url, or {"url", "day"} where the source says when the page
# last changed]: sitemaps and the like
CANDIDATE_SOURCES: list[Callable] = []
MAX_LISTINGS = 6  # listing pages read for links (home page, pagination, archives)
MAX_CANDIDATES = 30  # candidate pages fetched and read by the page-level extractor
BUDGET_SECONDS = 150.0  # discovery runs in one task, under its time limit (polite delays add up)


def _html_page(rt, crawl_id: str, url: str) -> Page | None:
    """The page at `url` (cached for the learning chord), or None if it is not an HTML page."""
    try:
        page = page_at(rt, crawl_id, url)  # binary served as text/html is no page (and is not cached as one)
    except FetchError:
        return None
    if page is None:
        return None
    # read as the crawl will extract it: rendered where --js decided so (a script-drawn
    # post's page as served holds neither its content nor its title)
    return rendering.page(rt, crawl_id, url, page)


def _candidate_links(rt, crawl_id: str, home_url: str, home: Page, deadline: float,
                     section: str | None = None, enough: Callable[[list], bool] | None = None) -> list:
    """[[(url, anchor, rel=next)] per page] of the home page (and the blog's section, where its
    declared feed names one) and of the listings they lead to, until `enough` says the pages
    read so far hold enough candidates."""
    links, queue, read = [], [home_url] + ([section] if section else []), set()
    while queue and len(read) < MAX_LISTINGS and time.monotonic() < deadline:
        url = queue.pop(0)
        if url in read:
            continue
        read.add(url)
        page = home if url == home_url else _html_page(rt, crawl_id, url)
        if page is None:
            continue
        found = page_links(page.root, url, home_url)
        links.append(found)
        listed_days.note(rt, crawl_id, page, [u for u, *_ in found])  # the days it prints beside them
        if enough is not None and enough(links):
            break
        queue.extend(u for u in listing_links(found) if u not in read)
    return links


def _extra(rt, crawl_id: str, home_url: str, home_html: str) -> tuple[list[str], dict[str, str]]:
    """The extra sources' candidate URLs, and the day each last changed where a source says."""
    out, days = [], {}
    for source in CANDIDATE_SOURCES:
        try:
            for c in source(rt, crawl_id, home_url, home_html) or []:
                u = canonical(c["url"] if isinstance(c, dict) else c)
                out.append(u)
                if isinstance(c, dict) and c.get("day"):
                    days.setdefault(u, c["day"])
        except Exception as e:  # another source's bug must not stop the crawl
            log.exception("candidate source %r failed", source)
            rt.state.add_error(crawl_id, home_url, "candidates", f"{type(e).__name__}: {e}")
    return [u for u in out if in_scope(u, home_url)], days


MAX_SITEMAP_FILES = 4  # sitemap files read for candidates (the traversal reads them all later)


def _robots_text(rt, home_url: str) -> str:
    try:
        return getattr(rt.downloader.robots(home_url), "text", "") or ""
    except Exception:  # without robots.txt, the usual paths
        return ""


def _read_sitemap(rt, crawl_id: str, url: str) -> dict | None:
    from tasks.discover import sitemaps as sm
    from workers.discover.sources import keep_sitemap, note_missing

    try:
        data = sm.parse_sitemap(rt.downloader.get(url).content, url)
        keep_sitemap(rt, crawl_id, url, data)  # the traversal reads it from there, not asking again
        return data
    except (FetchError, sm.SitemapError) as e:  # a guess that is not there, or no sitemap: the next one
        if not (isinstance(e, FetchError) and e.transient):
            note_missing(rt, crawl_id, url)  # the traversal does not ask it again
        return None
    except Exception:
        return None


def _sitemap_entries(rt, crawl_id: str, queue: list[str], home_url: str) -> list[dict]:
    """The URL entries of the first sitemaps that answer: an index's sitemaps are read
    before the next guess, and reading stops at the first sitemap that lists pages."""
    urls, read = [], 0
    while queue and read < MAX_SITEMAP_FILES:
        u = queue.pop(0)
        if not in_scope(u, home_url) and not u.endswith((".xml", ".xml.gz", ".txt")):
            continue
        got = _read_sitemap(rt, crawl_id, u)
        if got is None:
            continue
        read += 1
        queue[:0] = [e["url"] for e in got.get("sitemaps") or []]
        urls.extend(got.get("urls") or [])
        if urls and not got.get("sitemaps"):
            break
    return urls


def sitemap_candidates(rt, crawl_id: str, home_url: str, home_html: str) -> list[dict]:
    """Page URLs the blog's sitemaps list (robots.txt's, else the first usual path that
    answers), newest first where they say when, with the day of their lastmod (unless the
    lastmods are one build's stamp): candidates beside the links."""
    from tasks.discover import sitemaps as sm

    from tasks.fetch.html import parse_html

    declared = sm.declared_sitemaps(parse_html(home_html, home_url), home_url) if home_html else []
    queue = [u for u, _ in sm.candidates(home_url, _robots_text(rt, home_url), declared)]
    urls = _sitemap_entries(rt, crawl_id, queue, home_url)
    urls.sort(key=lambda e: e.get("lastmod") or "", reverse=True)
    stamp = sm.stamped(urls)
    return [{"url": e["url"], "day": None if stamp else (e.get("lastmod") or "")[:10] or None} for e in urls]


CANDIDATE_SOURCES.append(sitemap_candidates)


class _PageFacts:
    """page_facts of the pages training reads, each read once (None: no HTML page); a
    shortlink's page names its permalink, which the entry then is."""

    def __init__(self, rt, crawl_id: str, home_url: str, site_feeds=frozenset()):
        self.rt, self.crawl_id, self.home_url, self.site_feeds = rt, crawl_id, home_url, site_feeds
        # (issue 33) discovery runs again from its start after each politeness wait (HostBusy):
        # the facts of the pages read by its earlier runs are kept in Redis, not worked out again
        # (page_facts runs a generic extractor: worked out per run, training cost n^2 of them)
        self.key = Keys(crawl_id).fetched("training-facts")
        self.of: dict[str, dict | None] = {u: json.loads(f) for u, f in (rt.state.r.hgetall(self.key) or {}).items()}

    def __call__(self, url: str) -> dict | None:
        if url not in self.of:
            page = _html_page(self.rt, self.crawl_id, url)
            self.of[url] = page_facts(page.html, url) if page else None
            if self.of[url] is not None:
                self.of[url]["permalink"] = declared_permalink(page.root, page.final_url, self.home_url, self.site_feeds)
            with self.rt.state.r.pipeline() as p:
                p.hset(self.key, url, json.dumps(self.of[url]))
                p.expire(self.key, REMEMBER_TTL)
                p.execute()
        return self.of[url]

    def read(self) -> dict[str, dict]:
        """url -> facts of the pages read that are HTML pages."""
        return {u: f for u, f in self.of.items() if f}


def _enriched(entries: list[dict], need: str, facts: _PageFacts, deadline: float) -> list[dict]:
    """The feed's entries, excerpts given their page's content where it holds them."""
    out = []
    for e in entries:
        if need == "excerpt" and time.monotonic() < deadline and (f := facts(e["url"])):
            e = enrich_excerpt(e, f)
        out.append(e)
    return out


def _candidate_urls(rt, crawl_id: str, home_url: str, home: Page, known: list[str],
                    deadline: float, since: str | None = None) -> tuple[list[str], list[str], dict[str, str]]:
    """(candidate post URLs best first, those inside the blog's section, the day a source says
    each last changed): the links of the home page and listings and the extra sources' URLs,
    ranked; only the section's when it holds enough (the blog is a section of a larger site:
    its posts are there). An update crawl (`since`) reads no more listings once the links read
    so far date MIN_ENTRIES candidates after since by their URLs, with the feed's own posts:
    training reads those first, and they are the new posts the traversal reads anyway."""
    section = feed_section(feed_links(home.root, home_url, home_url), home_url)
    # a listing (a month's archive, page N) holding one post reads as that post, and a page the
    # menu links (about, projects) may share the posts' template: never candidates
    menu = navigation_links(home.root, home_url)

    def ranked_of(per_page: list, extra: list[str] = ()) -> list[str]:
        ranked = rank_candidates([x for links in per_page for x in links], known=known,
                                 extra=list(extra), exclude=set(known),
                                 demote=sitewide(per_page), section=section)
        ranked = [u for u in ranked if not is_listing(u, home_url) and u not in menu and u.rstrip("/") not in menu]
        # a page below another candidate (an image's attachment page, /post/ss1/) is part of that post
        posts = set(ranked) | set(known)
        return [u for u in ranked if not under_post(u, posts.__contains__, home_url)]

    def enough(per_page: list) -> bool:
        dated_new = [u for u in ranked_of(per_page) if url_latest_day(u) and not older(url_latest_day(u), since)]
        return len(dated_new) + len(known) >= MIN_ENTRIES

    per_page = _candidate_links(rt, crawl_id, home_url, home, deadline, section, enough if since else None)
    extra, days = _extra(rt, crawl_id, home_url, home.html)
    ranked = ranked_of(per_page, extra)
    inside = [u for u in ranked if section and u.startswith(section)]
    return (inside if len(inside) >= MIN_ENTRIES else ranked), inside, days


def _read_candidates(facts: _PageFacts, known: list[str], ranked: list[str], deadline: float,
                     since: str | None = None, days: dict[str, str] | None = None):
    """Reads the feed's own posts (they vote for the posts' template), then the candidates,
    while the budget lasts. An update crawl (`since`) reads the candidates that may be new
    first (read anyway) and older ones (by the day in their URL, or the day a sitemap says
    they last changed: `days`) only to make up MIN_ENTRIES."""
    for u in known[:MAX_CANDIDATES]:
        if time.monotonic() < deadline:
            facts(u)
    if since:
        days = days or {}
        day = {u: url_latest_day(u) or days.get(u) for u in ranked}
        new = [u for u in ranked if day[u] and not older(day[u], since)]
        old = [u for u in ranked if older(day[u], since)]
        # a page no source dates may be an older post: read only to make up MIN_ENTRIES with the
        # feed's posts (read already) and the dated new ones (the traversal reads a new one anyway)
        undated = [u for u in ranked if not day[u]]
        room = max(0, MIN_ENTRIES - len(known[:MAX_CANDIDATES]) - len(new))
        ranked = new[:MAX_CANDIDATES] + (undated + old)[:room]
    for u in ranked[:MAX_CANDIDATES]:
        if time.monotonic() > deadline:
            break
        facts(u)


def _listing_days(rt, crawl_id: str, pseudo: list[dict]) -> list[dict]:
    """Pseudo entries dated by the day the listings read for candidates print beside each (a
    card's `<time>`) where one does: the blog's own, before a generic reading of the post's page
    (a build time, a day misread: 11. 10. for November 10th; a theme printing days on its
    listings only)."""
    days = listed_days.days_of(rt, crawl_id, [p["url"] for p in pseudo])
    return [dict(p, published=days[p["url"]], sources=dict(p.get("sources") or {}, date="listing"))
            if p["url"] in days else p for p in pseudo]


def _pseudo(facts: _PageFacts, known: list[str], inside: list[str], feed: list[dict]) -> list[dict]:
    """Pseudo entries of the pages read that the feed does not list, their dates and
    authors checked by the feed's own posts."""
    pseudo = [p for p in pseudo_entries(list(facts.read().values()), prefer=known or inside)
              if p["url"] not in set(known)]
    return checked_by_feed(pseudo, feed, facts.read())


def _report_excerpts(st, crawl_id: str, home_url: str, out: list[dict]):
    enriched = sum(bool(e.get("content_from")) for e in out)
    st.add_error(crawl_id, home_url, "training",
                 f"excerpt-only feed: {enriched} of {len(out)} entries given their page's content")


def training_entries(rt, crawl_id: str, home_url: str, home: Page, entries: list[dict],
                     need: str | None, since: str | None = None) -> list[dict]:
    """The feed's entries (excerpts given their page's content where it holds them),
    followed by pseudo entries of candidate posts while there are fewer than MIN_ENTRIES
    with full content. `since`: an update crawl's (its new posts read first)."""
    if need is None:
        return entries
    st = rt.state
    deadline = time.monotonic() + BUDGET_SECONDS
    # the comment feeds the home page declares are the whole blog's: no page's permalink
    facts = _PageFacts(rt, crawl_id, home_url, frozenset(comment_feeds(home.root, home_url)))
    out = _enriched(entries, need, facts, deadline)
    if need == "excerpt" and out:
        _report_excerpts(st, crawl_id, home_url, out)
    full = [e for e in out if e.get("content_html") and not e.get("content_is_summary")]
    if len(full) >= MIN_ENTRIES:
        return out

    known = [e["url"] for e in out]
    if since and len(known) >= MIN_ENTRIES:
        # an update crawl whose feed lists enough posts trains on them (their pages read): the
        # listings and sitemaps a search for more would read are the traversal's to judge
        ranked, inside, days = [], [], {}
    else:
        ranked, inside, days = _candidate_urls(rt, crawl_id, home_url, home, known, deadline, since)
    _read_candidates(facts, known, ranked, deadline, since, days)
    pseudo = _listing_days(rt, crawl_id, _pseudo(facts, known, inside, out))
    if pseudo:
        st.save_blog(crawl_id, pseudo=len(pseudo))
    st.add_error(crawl_id, home_url, "training",
                 f"{need} feed: {len(pseudo)} pseudo entries from {len(facts.of)} pages "
                 f"(sources {pseudo[0]['sources'] if pseudo else {}})")
    # pseudo entries with full content go before a feed's excerpts: the chord learns from the first ones
    if need == "excerpt":
        return full + pseudo + [e for e in out if e not in full]
    return out + pseudo
