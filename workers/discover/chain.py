"""An update crawl's proof by the posts' own previous/next links (issue 35).

A blog whose post pages link their neighbours (tasks.discover.neighbours) shows every post in
date order, one page after the other. Each post an update crawl reads notes its neighbours;
once the chain read from the newest post runs down past `since`, and every post known to be
new (read, listed by the home page, or in the feed) is on it, no other listing can hold a new
post: the crawl is `covered` and tag, category, author and archive pages are left unread.
A blog with no such links, or whose links are no chain in date order, is judged as before.

    noted(rt, crawl_id, url, root, posts, since, base)   a post read: its neighbours noted, the chain judged

Kept per crawl: `crawl:C:near` (post url -> JSON its neighbours) and the crawl hash's `chain`
field ("pending", "broken", "none", or "reached": a waiting listing asks `pending`).
"""
from __future__ import annotations

import json

from tasks.discover.neighbours import BROKEN, MAX_CHAIN, PENDING, REACHED, neighbour_links, walk
from tasks.discover.recency import day_before, day_of, entry_day, older
from tasks.text.dates import url_day, url_latest_day
from workers.discover import listed, proof
from workers.discover.proof import CHAIN_COVER  # noqa: F401 (the chain's proof)
from workers.fetch import pages
from workers.keys import Keys

FIELD = "chain"  # the crawl hash's field: how the chain stands
NONE = "none"  # no post read links its neighbours
FINAL = {BROKEN, REACHED}


def near_key(crawl_id: str) -> str:
    return f"{Keys(crawl_id).crawl}:near"  # (Keys.working: deleted with the working keys)


def noted(rt, crawl_id: str, url: str, root, posts: list[str], since: str, base: str | None = None) -> str | None:
    """Note the neighbours of the post read at `url` (its page's `root` read at `base`, where it
    was redirected; its post links) and judge the chain; returns how it stands, and sets
    `covered` where it reached past `since`."""
    k = Keys(crawl_id)
    r = rt.state.r
    state = r.hget(k.crawl, FIELD)
    if state in FINAL:
        return state
    near = [u for u in neighbour_links(root, base or url, posts) if u != url]
    with r.pipeline(transaction=False) as p:
        p.hset(near_key(crawl_id), url, json.dumps(near))
        p.hlen(near_key(crawl_id))
        p.hincrby(k.crawl, "progress", 1)  # pages waiting for the chain wait on (waits.one_more)
        noted_posts = p.execute()[1]
    # judged on every post read: past MAX_CHAIN posts (since far back) the chain proves nothing
    # cheaply enough, and the listings are read as before
    state = BROKEN if noted_posts > MAX_CHAIN else judge(rt, crawl_id, since)
    r.hset(k.crawl, FIELD, state)
    if state == REACHED:
        proof.cover(r, k.crawl, CHAIN_COVER)
    return state


def named(rt, crawl_id: str, url: str, since: str | None = None) -> bool:
    """Is `url` a neighbour a post read names (the chain goes on through it)? A page waiting for the
    chain must not be the one the chain waits for. A post read older than `since` continues no
    chain an update crawl needs (the chain is past since there): its neighbours are not counted."""
    near = rt.state.r.hgetall(near_key(crawl_id)) or {}
    naming = [u for u, v in near.items() if url in json.loads(v)]
    if not naming or not since:
        return bool(naming)
    days = rt.state.r.hmget(f"{Keys(crawl_id).crawl}:days", naming)
    return any(not older(day_of(d), since) for d in days)


def judge(rt, crawl_id: str, since: str) -> str:
    """How the chain of the posts read stands (REACHED, PENDING, BROKEN, or NONE)."""
    k = Keys(crawl_id)
    r = rt.state.r
    near = {u: json.loads(v) for u, v in (r.hgetall(near_key(crawl_id)) or {}).items()}
    if not any(near.values()):
        return NONE
    read_days = r.hgetall(f"{k.crawl}:days") or {}  # posts read: their days (listed.learned)
    days = {u: day_of(d) for u, d in read_days.items()}
    unread = {n for ns in near.values() for n in ns if n not in days}
    days.update(_known_days(rt, crawl_id, sorted(unread), bound=True))
    state, path = walk(near, days, since)
    if state != REACHED:
        return state
    on = set(path)
    # (a feed naming each post at an address the blog does not serve, answered 404, names none)
    off = [u for u in _known_new(rt, crawl_id, read_days, since) if u not in on and not _below(u, on)]
    return BROKEN if [u for u in off if not pages.gone(rt, crawl_id, u)] else REACHED


def _below(url: str, posts: set[str]) -> bool:
    """Is `url` a page below one of `posts` (a post's comment page, /slug/comment-page-1/, that
    a listing's "3 comments" links): that post's, not a post off the chain."""
    return any(url.startswith(p.rstrip("/") + "/") for p in posts if p.endswith("/"))


def _known_days(rt, crawl_id: str, urls: list[str], bound: bool = False) -> dict[str, str | None]:
    """The day known of posts not read: their URL's, else their feed entry's; `bound`: else the
    latest day their URL's month allows (/2008/02/slug.html: 2008-02-29), enough to tell the
    unread neighbour that ends the chain older than since (an update crawl leaves it unread)."""
    out = {u: url_day(u) for u in urls}
    rest = [u for u, d in out.items() if not d]
    if rest:
        exact = listed.days_exact(rt, crawl_id)  # (the chain is judged on since's cut: a UTC feed's margin)
        for u, e in zip(rest, rt.state.r.hmget(Keys(crawl_id).entries, rest)):
            if e:
                out[u] = entry_day(json.loads(e), exact)
    if bound:
        out = {u: d or url_latest_day(u) for u, d in out.items()}
        # (a post a listing prints its URL's day beside, before since: that day, without the margin)
        dated = [u for u in urls if url_day(u)]
        for u, o in zip(dated, rt.state.r.smismember(listed.dated_old_key(crawl_id), dated) if dated else []):
            if o:
                out[u] = day_before(url_day(u))
    return out


def _known_new(rt, crawl_id: str, read_days: dict, since: str) -> list[str]:
    """Posts known to be new: read and dated after `since` (`read_days`: url -> day of the pages
    read), or listed by the home page or the feed with such a day (their URL's, their entry's)."""
    k = Keys(crawl_id)
    r = rt.state.r
    new = [u for u, d in read_days.items() if day_of(d) and not older(d, since)]
    home = json.loads(r.hget(k.crawl, "home_posts") or "[]")
    listed = list(dict.fromkeys(home + list(r.hkeys(k.entries) or [])))
    for u, d in _known_days(rt, crawl_id, [u for u in listed if u not in read_days]).items():
        if d and not older(d, since):
            new.append(u)
    return new
