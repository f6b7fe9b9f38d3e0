"""A post's neighbours: the previous and next posts its page links to, and what a chain of them proves.

Most blog templates link each post to the post before and after it (`rel="prev"`/`rel="next"`,
a link marked "previous"/"older"/"next"/"newer" by its class or id, or "« title" / "title »"). Read from the newest
post down, these links visit every post in date order: once the chain of posts read reaches
a post older than `since`, every post newer than `since` is on it, and an update crawl needs
no other listing (issue 35). The direction a theme gives its links is not trusted (one theme's
"previous" is another's newer post); the days of the posts read decide.

    neighbour_links(root, base_url, posts)        the post links the page marks as its neighbours
    walk(near, days, since)                       the chain from the newest post read down, and how it ends

Pure: no Celery, no Redis.
"""
from __future__ import annotations

import re
from urllib.parse import urljoin

from tasks.discover.recency import day_of, older
from tasks.discover.urls import canonical

__all__ = ["neighbour_links", "walk", "MAX_CHAIN", "PENDING", "BROKEN", "REACHED"]

MAX_CHAIN = 1000  # posts walked at most (a longer chain proves nothing: the listings are read)
_MARK = re.compile(r"(?:^|[^a-z])(?:prev|previous|older|next|newer)(?:[^a-z]|$)", re.I)
_REL = {"prev", "previous", "next"}
# a link's text opening or closing with an arrow or angle quote ("« Older title", "Newer title »"),
# as templates with no rel and no class write their previous/next links
_ARROW = re.compile(r"^\s*[«‹←⟵◄]|[»›→⟶►]\s*$")
_LEVELS = 3  # the link and its ancestors up to this many levels looked at for a mark

PENDING, BROKEN, REACHED = "pending", "broken", "reached"


def _marked_by_rel(a) -> bool:
    return bool(_REL & set((a.get("rel") or "").lower().split()))


def _marked_by_name(a) -> bool:
    el = a
    for _ in range(_LEVELS):
        if el is None or not isinstance(el.tag, str):
            return False
        if _MARK.search(f"{el.get('class') or ''} {el.get('id') or ''}"):
            return True
        el = el.getparent()
    return False


def neighbour_links(root, base_url: str, posts: list[str]) -> list[str]:
    """The links among `posts` (canonical post URLs of the page) that the page marks as its
    previous and next posts: those marked by `rel` where any is, else by class or id, else by an
arrow or angle quote opening or closing their text ("« title", "title »"). At most
    two distinct URLs, else none (a page marking many links, a list of older posts, says nothing
    of its own neighbours)."""
    if root is None or not posts:
        return []
    wanted, me = set(posts), canonical(base_url)
    by_rel: list[str] = []
    by_name: list[str] = []
    by_arrow: list[str] = []  # "« Previous title" | "Next title »": marked by its text only
    for a in root.iter("a", "link"):
        href = a.get("href")
        if not href:
            continue
        try:
            u = canonical(urljoin(base_url, href.strip()))
        except ValueError:
            continue
        if u == me or u not in wanted:
            continue
        if _marked_by_rel(a):
            by_rel.append(u)
        elif a.tag == "a" and _marked_by_name(a):
            by_name.append(u)
        elif a.tag == "a" and _ARROW.search("".join(a.itertext())):
            by_arrow.append(u)
    found = list(dict.fromkeys(by_rel or by_name or by_arrow))
    return found if len(found) <= 2 else []


def walk(near: dict[str, list[str]], days: dict[str, str | None], since: str) -> tuple[str, list[str]]:
    """Follow the chain of neighbours from the newest post read down: (how it ends, the posts on
    it). `near`: url -> its neighbours, for the posts read; `days`: the day known of a post (read,
    or its URL's or feed's), "" or None unknown.

    REACHED: the chain runs from the newest post read, which links one neighbour only, each post's
    day no later than the one before, each pair linking each other, down to a post older than
    `since` (or to a post with no older neighbour: the blog's first); PENDING: a post next to one
    read is not read yet and its day is unknown or new; BROKEN: not a chain in date order (three
    neighbours, a post's day after the one before it, links one way only, a loop, an undated post
    read, the newest post read linking two others that are read)."""
    new = [u for u in near if day_of(days.get(u)) and not older(days[u], since)]
    if not new:
        return PENDING, []
    waiting = any(n not in near and not older(days.get(n), since) for u in new for n in near[u])
    top = max(day_of(days[u]) for u in new)
    ends = [u for u in new if len(near[u]) == 1 and day_of(days[u]) == top]
    if not ends:  # the newest post read links two: one of them is newer (not read yet), or no chain
        return (PENDING if waiting else BROKEN), []
    start = ends[0]
    path, came, cur = [start], None, start
    while len(path) <= MAX_CHAIN:
        if not day_of(days.get(cur)):
            return BROKEN, path  # a post read with no day: its place in the chain is unknown
        ahead = [u for u in near[cur] if u != came]
        if not ahead:
            return REACHED, path  # the blog's first post
        if len(ahead) > 1:
            return BROKEN, path
        nxt = ahead[0]
        if nxt in path:
            return BROKEN, path
        if nxt not in near:  # not read: it ends the chain where the blog's dates say it is old
            return (REACHED if older(days.get(nxt), since) else PENDING), path + [nxt]
        if cur not in near[nxt] or (day_of(days.get(nxt)) or "") > days[cur][:10]:
            return BROKEN, path
        if older(days.get(nxt), since):
            return REACHED, path + [nxt]
        path.append(nxt)
        came, cur = cur, nxt
    return BROKEN, path
