"""The links of a page read that an update crawl follows (issue 35, docs/update.md).

    links(rt, crawl_id, url, ctx, posts, others, ...)   a read page's links to follow, and the
                                                        priorities of its listing's pages

A post older than `since` leads nowhere new; a listing is judged by the days of its items (a
listing showing only older posts is past since: its later pages left), its items registered for
workers/discover/listed.py, the home's listing read in page order (home_series.py). The days a
link is known by (its URL's, its feed entry's, the record an earlier crawl holds, the day a
listing prints beside it) are `days`; `learned` notes the day of a post read.
"""
from __future__ import annotations

import json

from tasks.discover.candidates import navigation_links
from tasks.discover.canonical import is_listing, titled_links
from tasks.discover.recency import (archive_end, at_items_place, day_of, entry_day, items_reach, listing_cut, older,
                                    printed_day, printed_days, reaches_past, record_day, series, twin_days)
from tasks.discover.traversal import POST_PRIORITY
from tasks.discover.urls import extract_links, is_post
from tasks.text.dates import url_day, url_latest_day
from workers.discover import chain, home_series, listed
from workers.discover.since import exact_of, since_of
from workers.discover.skipped import revive, skip
from workers.state import Keys, unpack

MAX_HOME_POSTS = 200  # the home page's post links kept (a listing's verdict leaves them out)


def links(rt, crawl_id: str, url: str, ctx: dict, posts: list[str], others: list[str], *,
          post: bool, published: str | None, page=None, source: str | None = None,
          title: str | None = None) -> tuple[list[str], list[str], dict]:
    """(posts, others, priorities) an update crawl follows from the page at `url`: a post
    older than `since` or a listing showing only older posts leads nowhere new; post links
    dated before `since` (or listed after older ones) and date archives ending before it are
    left; the home page's listing is read in page order (`priorities`: url -> score). A post's
    `published` is judged as its record carries it (`source`: where the record's day came from;
    recency.record_day: the day its page prints needs no time zones' margin); its `title`
    tells a copy of a post its post's own URL (`_own_url`)."""
    since = since_of(ctx)
    if not since:
        return posts, others, {}
    home = ctx["blog"]["home"]
    if post:
        published = record_day(published, source, exact_of(ctx))
        learned(rt, crawl_id, url, published, home)
        if page is not None and not page.garbled:  # its previous/next links: a chain down past since?
            # (a neighbour outside the post pattern is a post all the same: a blog with two URL schemes)
            try:
                chain.noted(rt, crawl_id, url, page.root, posts + _maybe(others, home), since, base=page.final_url)
            except Exception as e:  # the chain only saves requests: a page it cannot read is still read
                if isinstance(e, (ConnectionError, TimeoutError)) or type(e).__module__.startswith("redis"):
                    raise  # (Redis down: the page's task is retried as any)
                rt.state.add_error(crawl_id, url, "chain", f"previous/next links unreadable: {type(e).__name__}: {e}")
        if older(published, since):
            skip(rt, crawl_id, "old_post", posts + others)
            return [], [], {}
        _own_url(rt, crawl_id, url, ctx, page, title, posts)
        return _dated_posts(rt, crawl_id, ctx, posts, since, listing=False), _others(rt, crawl_id, url, others, since, home), {}
    learned(rt, crawl_id, url, None, home)  # read, and no post: no day of its own for the listing it is in
    # pages the post pattern does not take in that may be posts all the same (a blog with two URL
    # schemes: its older posts at /slug/); judged with the posts, in document order
    maybe = _maybe(others, home)
    # a listing's own dates beside its links (a card's <time>), where the URLs carry none
    readable = page is not None and not page.garbled
    # the site's pages its menus name (about, talks, friends) are no posts it lists: no maybe-post,
    # and not among the listing's items (a page of the home's listing vouches for its items)
    menu = navigation_links(page.root, page.final_url) if readable else set()
    if maybe and menu:
        maybe = [u for u in maybe if u not in menu and u.rstrip("/") not in menu]
    printed = printed_days(page.root, page.final_url, posts + maybe, exact_of(ctx)) if readable else {}
    fresh = [u for u, d in printed.items() if not older(d, since)]
    if fresh:  # dated new here: no other listing's cut leaves them (widgets run in their own order)
        rt.state.r.sadd(dated_new_key(crawl_id), *fresh)
    days = [d or printed.get(u) for u, d in zip(posts, _days(rt, crawl_id, ctx, posts, printed))]
    # the verdict leaves out the post links the home page shows too (a "recent posts" widget on
    # every page would make every listing look new)
    shared = set() if url == home else _home_posts(rt, crawl_id)
    maybe_days = [d or printed.get(u) for u, d in zip(maybe, _days(rt, crawl_id, ctx, maybe, printed))]
    # (a listing all of whose posts the home page shows too, as on a blog whose home lists every
    # post, is judged by them all: nothing on it tells a widget from its own listing); the pages
    # it dates outside the post pattern count as its posts where it dates every post link too (a
    # page of a blog's older posts at /slug/ beside the pattern's newer scheme: no post link at all)
    shown = list(zip(posts, days))
    # (the maybe-posts at the place its post links sit, those it prints a day beside first: not
    # a link in an excerpt, a post citing another, nor a "recent posts" widget's with no day)
    placed = at_items_place(page.root, page.final_url, posts, maybe, printed) if maybe and readable else set(maybe)
    if readable and all(day_of(d) for d in days):
        shown += [(u, d) for u, d in zip(maybe, maybe_days) if day_of(d) and u in placed]
    # the page's links in document order, read once (the verdict's and the scope's sorting)
    order = {u: i for i, u in enumerate(extract_links(page.root, page.final_url))} if maybe and readable else {}
    if len(shown) > len(posts) and readable:
        shown.sort(key=lambda p: order.get(p[0], len(order)))
    own = [(u, d) for u, d in shown if u not in shared] or shown
    past, _ = listing_cut([d for _, d in own], since) if own else (False, [])
    # a listing running newest first down past `since`: its later pages show older posts only
    # (not judged on the home page, whose own links may hold a widget of older posts)
    reach = url != home and not past and reaches_past([d for _, d in own], since)
    _, old = listing_cut(days, since)
    if readable and any(o and not day_of(d) for o, d in zip(old, days)):
        # undated links old by the listing's order: only those where its dated ones sit (its
        # items), not a "recent entries" widget below them (saved when those were new)
        aside = _off_items(page, list(zip(posts, days)))
        old = [o and u not in aside for u, o in zip(posts, old)]
    if url == home:
        rt.state.r.hset(Keys(crawl_id).crawl, "home_posts", json.dumps(list(dict.fromkeys(posts + maybe))[:MAX_HOME_POSTS]))
    # a post whose URL's day is the day the listing prints beside it: the day its page prints
    # (two sources agree: no other item's day), compared without the time zones' margin
    confirmed = {u for u in posts + maybe if (d := url_day(u)) and day_of(printed.get(u)) == d
                 and older(printed_day(d, exact_of(ctx)), since)}
    if confirmed:  # (a day the reader sees: not a time in UTC the listing gives alone)
        seen = printed_days(page.root, page.final_url, posts + maybe, exact_of(ctx), shown_only=True)
        confirmed = {u for u in confirmed if seen.get(u) == printed.get(u)}
    # pages outside the post pattern the listing dates before since: older posts, left when
    # popped (another source may have queued them: a sitemap)
    gone = {u for u, d in zip(maybe, maybe_days) if day_of(d) and older(d, since)} | (confirmed - set(posts))
    # (and a link to one of its dated items but for the trailing slash: an excerpt's "/slug")
    gone |= {u for u, d in twin_days(printed, maybe).items() if older(d, since)}
    if gone or confirmed:
        _dated_old(rt, crawl_id, gone | confirmed)
    if past:
        skip(rt, crawl_id, "past_since", posts + others)
        home_series.past(rt, crawl_id, url, home, others + posts)
        home_series.release(rt, crawl_id, url)
        return [], [], {}
    old = [o or u in confirmed for u, o in zip(posts, old)]
    keep = [u for u, o in zip(posts, old) if not o]
    _count_old(rt, crawl_id, [u for u, o in zip(posts, old) if o], days, posts)
    others = _others(rt, crawl_id, url, others, since, home)
    main = url == home or home_series.in_main_series(rt, crawl_id, url)
    # where the days of its undated posts are learned by reading them, top first (listed.py)
    # those the listing dates before since are old posts as its post links would be (a series'
    # older parts at /slug/ beside the pattern's /2021/05/18/slug/)
    if gone:
        skip(rt, crawl_id, "printed_date", sorted(gone))
        others = [u for u in others if u not in gone]
    # its items: the post links and the maybe-posts among them (a link in an excerpt, an old
    # permalink that redirects, is no item: nothing vouches for it, and a proof leaves it)
    scope = [(u, d) for u, d in list(zip(posts, days)) + [(u, d) for u, d in zip(maybe, maybe_days) if u in placed]
             if (url == home or u not in shared) and u not in menu]
    if maybe and readable:
        scope.sort(key=lambda p: order.get(p[0], len(order)))
    priorities = {} if reach else listed.register(rt, crawl_id, url, [u for u, _ in scope], [d for _, d in scope],
                                                   main=main)
    if url == home and readable and not past and not any(series(u) for u in others + posts) \
            and items_reach(page.root, page.final_url, own, since):
        # the home page's own list (every post, dated, no numbered page: where it has some, they
        # are read in order and prove it, each vouching for its posts) runs newest first down past
        # since: its new posts are every new post (its links above the first old one read)
        listed.vouch(rt, crawl_id, _above_old(scope, since))
        home_series.past(rt, crawl_id, url, home)
    if reach and main:  # its new posts, above the old ones, are the home listing's: read (not `covered`)
        listed.vouch(rt, crawl_id, _above_old(scope, since))
    if reach:  # before the next page of the home's listing is put back (_read_in_series)
        home_series.past(rt, crawl_id, url, home, others + posts)
        others = home_series.before_bound(rt, crawl_id, url, others)
    if main:
        if priorities and (s := series(url)) and url != home:
            rt.state.r.hset(Keys(crawl_id).crawl, f"judging:{s[0]} {s[1]}", url)
        # (a numbered page the post pattern takes in too, /a/P2.html beside /a/12-slug.html, is one)
        paging = others + [u for u in posts if series(u)]
        priorities.update(home_series.series_order(rt, crawl_id, url, home, paging))
        s = series(url)
        if s:  # this page of the home's listing is read: the next one may be
            home_series.read_in_series(rt, crawl_id, s)
            home_series.release(rt, crawl_id, url)
        # (a page after the home page: the home's own links hold its widgets, which no other page's verdict counts)
        old_item = url != home and any(day_of(d) and older(d, since) for _, d in own)
        if home_series.last_page(rt, crawl_id, url, paging, old_item):
            home_series.past(rt, crawl_id, url, home, others + posts)  # (read whole: every post it lists known)
    return keep, others, priorities


def _own_url(rt, crawl_id: str, url: str, ctx: dict, page, title: str | None, posts: list[str]) -> None:
    """A new post read at a URL outside the post pattern (a copy: a mirror's `/permalink/slug.html`)
    that links its own title to one URL the pattern takes in: that URL is the post's own, and
    is read as if the home's listing linked it (the copy's record gives way to it, as in a full
    crawl: workers.discover.posts.takes_over), put back if it was left already; listed nowhere
    but on such copies, it would be left, and the post kept under the copy's URL only."""
    pattern = ctx["blog"].get("pattern")
    if page is None or page.garbled or not title or not pattern or is_post(url, pattern):
        return
    own = [u for u in titled_links(page.root, page.final_url, title, posts) if u != url]
    if len(own) == 1:
        listed.vouch(rt, crawl_id, own)
        revive(rt, crawl_id, own[0], POST_PRIORITY)  # (left already: the home's listing was read past since)


def _maybe(others: list[str], home: str) -> list[str]:
    """Links the post pattern does not take in that may be posts all the same: no listing, no
    numbered page, no date archive."""
    return [u for u in others if not is_listing(u, home) and not series(u) and not archive_end(u, home)]


def learned(rt, crawl_id: str, url: str, published: str | None, home: str) -> None:
    """A post's day is known (read, or held from an earlier crawl): the listing that lists it is
    judged again; a page of the home's listing cut now bounds that listing (`_past`)."""
    for listing, _ in listed.learned(rt, crawl_id, url, published, home=home):
        if listing != home and home_series.in_main_series(rt, crawl_id, listing):
            home_series.past(rt, crawl_id, listing, home)


def _home_posts(rt, crawl_id: str) -> set[str]:
    return set(json.loads(rt.state.r.hget(Keys(crawl_id).crawl, "home_posts") or "[]"))


def _days(rt, crawl_id: str, ctx: dict, posts: list[str], printed: dict | None = None) -> list[str | None]:
    """The day each post link is known to be of: its URL's, its feed entry's, or the record an
    earlier crawl holds; where the listing being read prints a day for it (`printed`), that day
    before a pseudo entry's (a generic reading of the page, which may take 11. 10. for
    November 10th)."""
    days = [url_latest_day(u) for u in posts]  # (a month in the URL: its last day, enough to tell old)
    unknown = [u for u, d in zip(posts, days) if not d]
    if unknown:
        k = Keys(crawl_id)
        entries = rt.state.r.hmget(k.entries, unknown)
        records = rt.state.raw.hmget(k.records, unknown)  # compressed JSON (State.record)
        known = {}
        for u, e, r in zip(unknown, entries, records):
            entry = json.loads(e) if e else None
            d = entry_day(entry, exact_of(ctx)) if entry and not (entry.get("pseudo") and (printed or {}).get(u)) else None
            if not d and r:
                d = held_day(unpack(r) or {}, ctx)
            known[u] = d
        days = [d or known.get(u) for u, d in zip(posts, days)]
    return days


def held_day(record: dict, ctx: dict) -> str | None:
    """The day a record held from an earlier crawl is judged by (recency.record_day)."""
    return record_day(record.get("published"), (record.get("sources") or {}).get("published"), exact_of(ctx))


def _dated_posts(rt, crawl_id: str, ctx: dict, posts: list[str], since: str, listing: bool) -> list[str]:
    days = _days(rt, crawl_id, ctx, posts)
    old = [u for u, d in zip(posts, days) if older(d, since)]
    _count_old(rt, crawl_id, old, days, posts)
    return [u for u, d in zip(posts, days) if not older(d, since)]


def _count_old(rt, crawl_id: str, old: list[str], days: list, posts: list[str]) -> None:
    day = dict(zip(posts, days))
    by_url = [u for u in old if url_latest_day(u)]
    skip(rt, crawl_id, "url_date", by_url)
    dated = [u for u in old if not url_latest_day(u) and day.get(u)]
    skip(rt, crawl_id, "feed_date", dated)
    skip(rt, crawl_id, "listing_order", [u for u in old if not day.get(u)])


def _others(rt, crawl_id: str, url: str, others: list[str], since: str, home: str) -> list[str]:
    """Non-post links: date archives ending before `since` left, and pages whose URL carries a
    day before it (a post the learned pattern does not take in, a page below an older post)."""
    keep, old, dated = [], [], []
    for u in others:
        end = archive_end(u, home)
        if end:
            (old if older(end, since) else keep).append(u)
        else:
            (dated if older(url_latest_day(u), since) else keep).append(u)
    skip(rt, crawl_id, "archive", old)
    skip(rt, crawl_id, "url_date", dated)
    return keep


def _off_items(page, pairs: list[tuple[str, str | None]]) -> set[str]:
    """The undated links of `pairs` (url, day known) that a listing page shows elsewhere than
    where two or more of its dated ones sit (its items): a "recent entries" widget, which runs in
    its own order (a page saved when other posts were new: its widget's links are not below the
    listing's old posts). Nothing where fewer than two dated links share a place."""
    dated = [u for u, d in pairs if day_of(d)]
    undated = [u for u, d in pairs if not day_of(d)]
    if len(dated) < 2 or not undated:
        return set()
    return set(undated) - at_items_place(page.root, page.final_url, dated, undated)


def dated_new_key(crawl_id: str) -> str:
    return f"{Keys(crawl_id).crawl}:dated_new"  # set: post links a listing dated after since


def _above_old(scope: list[tuple[str, str | None]], since: str) -> list[str]:
    """The links of a listing page, in document order, above its first one dated before since:
    the ones below (an older post's card, a link in its excerpt) are no new posts it lists."""
    out = []
    for u, d in scope:
        if day_of(d) and older(d, since):
            break
        out.append(u)
    return out


def _dated_old(rt, crawl_id: str, urls: set[str]) -> None:
    """Pages a listing dates before since (outside the post pattern, or posts whose URL's day it
    prints): left when popped (another source, a sitemap, a neighbour's link, may have queued
    them before the listing was read)."""
    rt.state.add_kept(listed.dated_old_key(crawl_id), urls)
