"""An update crawl learns the days of a listing's undated posts by reading them, top first (issue 35).

Most listings print no date beside a post link and most post URLs carry none (Ghost cards,
WordPress themes, Movable Type sidebars): their posts are read to learn whether they are new.
Read in the listing's order (newest first on a blog; from the bottom where the days it knows run
oldest first, as an archive's), the first posts read prove the rest: once
the days read from the top run newest first down past `since` (tasks.discover.recency.read_cut),
the listing's later links are old and are left unread. Kept per crawl:

    crawl:C:lists    listing url -> JSON [[post url, day known or null], ...] (document order);
                     "cut:" + listing -> the index of its last link that may be new
    crawl:C:listed   post url -> JSON [listing, index]: the first listing that lists it
    crawl:C:days     post url -> its day as read ("" for a post read and found undated)
    crawl:C:vouched  set: post links of the home page's listing (home page and numbered pages)

register(rt, crawl_id, listing, posts, days, ...)   note a listing's links; top-first priorities
learned(rt, crawl_id, url, day)                    a post read: the listings it was in judged again
judging(rt, crawl_id, listing)                     some of its undated posts still unread, no cut yet
place(rt, crawl_id, url)                           below a cut listing's cut? how many above it still unread?
"""
from __future__ import annotations

import json

from tasks.discover.recency import day_of, read_cut, since_cut
from tasks.discover.traversal import POST_PRIORITY
from workers.keys import Keys

MAX_LISTED = 500  # post links of one listing page noted (a page longer than that: its first ones)
LIST_SPAN = 1000  # listed posts read top first: POST_PRIORITY + LIST_SPAN - index
WINDOW = 3  # posts of a listing being judged read at once (politeness reads one host's pages one by one anyway)


def _keys(crawl_id: str) -> list[str]:
    return Keys(crawl_id).listings()  # lists, listed, days, vouched


def dated_old_key(crawl_id: str) -> str:
    """set: pages a listing dated before since: outside the post pattern by its printed day, or
    a post whose URL's day is the day the listing prints beside it (left when popped)."""
    return f"{Keys(crawl_id).crawl}:dated_old"


def register(rt, crawl_id: str, listing: str, posts: list[str], days: list[str | None], *,
             main: bool = False) -> dict[str, float]:
    """Note `listing`'s post links (document order) and the days known of them (None: unknown).
    Where some are unknown, the listing is judged again as each is read; returns their
    priorities (url -> score), which read them top first. `main`: a page of the home page's
    listing (its links vouched for: the new posts are among them once it reads down past since)."""
    lists, listed, _, vouched = _keys(crawl_id)
    pairs = list(zip(posts, days))[:MAX_LISTED]
    r = rt.state.r
    if main and pairs:
        vouch(rt, crawl_id, [u for u, _ in pairs])
    if oldest_first([d for _, d in pairs]):
        pairs.reverse()  # an archive listing its posts oldest first (its known days say so): read from the bottom
    unknown = [(i, u) for i, (u, d) in enumerate(pairs) if not day_of(d)]
    if not unknown or len(pairs) < 2:
        return {}
    with r.pipeline(transaction=False) as p:
        p.hset(lists, listing, json.dumps([[u, day_of(d)] for u, d in pairs]))
        for i, u in unknown:
            p.hsetnx(listed, u, json.dumps([listing, i]))
        p.execute()
    return {u: POST_PRIORITY + LIST_SPAN - min(i, LIST_SPAN - 1) for i, u in unknown}


def oldest_first(days: list[str | None]) -> bool:
    """Do a listing's known days (two at least, not all the same) run oldest first?"""
    dated = [d for d in map(day_of, days) if d]
    return len(dated) >= 2 and dated[0] < dated[-1] and all(a <= b for a, b in zip(dated, dated[1:]))


def learned(rt, crawl_id: str, url: str, day: str | None, *, home: str) -> list[tuple[str, int]]:
    """The post at `url` was read and is of `day` (None: undated): the listing that lists it is
    judged again; returns [(listing, index of its cut)] for a listing cut now."""
    lists, listed, days, _ = _keys(crawl_id)
    r = rt.state.r
    with r.pipeline(transaction=False) as p:
        p.hset(days, url, day_of(day) or "")
        p.hget(listed, url)
        where = p.execute()[1]
    if not where:
        return []
    listing = json.loads(where)[0]
    return [(listing, i)] if (i := judge(rt, crawl_id, listing, home=home)) is not None else []


def judge(rt, crawl_id: str, listing: str, *, home: str) -> int | None:
    """The index after which `listing`'s links cannot be new, now that more of its posts are
    read (noted as "cut:" + listing), or None."""
    lists, _, days, _ = _keys(crawl_id)
    r = rt.state.r
    raw = r.hget(lists, listing)
    if not raw:
        return None
    pairs = json.loads(raw)
    unknown = [u for u, d in pairs if not d]
    read = dict(zip(unknown, r.hmget(days, unknown))) if unknown else {}
    known = [d if d else read.get(u) for u, d in pairs]
    cut = read_cut(known, _since(rt, crawl_id), starts_new=listing == home)
    if cut is None:
        return None
    if not r.hsetnx(lists, "cut:" + listing, cut):
        return None  # judged already (another post's end got there first)
    return cut


def _since(rt, crawl_id: str) -> str:
    """The crawl's `since` as older() is given it (update.since_of: the blog's days exact or not)."""
    return since_cut(rt.state.r.hget(Keys(crawl_id).crawl, "since"), days_exact(rt, crawl_id)) or ""


def days_exact(rt, crawl_id: str) -> bool:
    """The blog's `days_exact` (update.exact_of, where no page context is at hand)."""
    exact = rt.state.r.hget(Keys(crawl_id).blog, "days_exact")
    return bool(exact and json.loads(exact))


def judging(rt, crawl_id: str, listing: str) -> bool:
    """Is `listing` still being judged: noted with unknown days, not cut, some of them unread?"""
    lists, _, days, _ = _keys(crawl_id)
    r = rt.state.r
    raw, cut = r.hmget(lists, [listing, "cut:" + listing])
    if not raw or cut is not None:
        return False
    unknown = [u for u, d in json.loads(raw) if not d]
    return bool(unknown) and any(v is None for v in r.hmget(days, unknown))


def place(rt, crawl_id: str, url: str) -> tuple[bool, int]:
    """(left, ahead) for the post at `url`: whether the listing that lists it cut it off (listed
    below its cut), and how many of the posts listed above it are still unread while that
    listing is judged (read more than WINDOW at once, the ones past the cut are read for nothing)."""
    lists, listed, days, _ = _keys(crawl_id)
    r = rt.state.r
    where = r.hget(listed, url)
    if not where:
        return False, 0
    listing, i = json.loads(where)
    raw, cut = r.hmget(lists, [listing, "cut:" + listing])
    if cut is not None:
        return i > int(cut), 0
    above = [u for u, d in json.loads(raw or "[]")[:i] if not d]
    return False, sum(v is None for v in r.hmget(days, above)) if above else 0


def vouch(rt, crawl_id: str, urls: list[str]) -> None:
    """The home page's listing links the posts at `urls` (a page of it judged by known days alone)."""
    if urls:
        rt.state.r.sadd(_keys(crawl_id)[3], *urls[:MAX_LISTED])


def vouched(rt, crawl_id: str, url: str) -> bool:
    """Does the home page's listing link the post at `url`?"""
    return bool(rt.state.r.sismember(_keys(crawl_id)[3], url))
