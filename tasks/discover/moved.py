"""A feed that names the blog's posts at the address the blog had before it moved.

A blog moved to another host or folder (a new domain, a mirror) often keeps the feed it wrote at
the old one: every entry links a host the crawl never reads, and the feed looks like another
site's, so the blog is learned without it (from its pages alone: no dates, no bylines to learn
from). The home page lists the newest posts, as the feed does. Where several entries' URLs end
as the home page's own links do (the same last segments, `/2008/11/slug.html`), and all of them
by the same change of the part before (`http://old.example/blog/` -> `http://new.example/b/`),
that change gives every entry its address on the blog. Pure functions.
"""
from __future__ import annotations

from collections import Counter
from urllib.parse import urlsplit

__all__ = ["moved_prefix", "rehome"]

MIN_PAIRS = 3  # entries that must end as a home page link does, by the same change
MIN_TAIL_CHARS = 6  # characters the shared end must have (a post's name, not "/" or "index.html")


def _tail(a: str, b: str) -> str:
    """The longest end of two URLs' paths (and queries) made of whole segments."""
    pa, pb = _rest(a), _rest(b)
    n = 0
    while n < min(len(pa), len(pb)) and pa[len(pa) - 1 - n] == pb[len(pb) - 1 - n]:
        n += 1
    tail = pa[len(pa) - n:]
    cut = tail.find("/")  # whole segments: from a slash on
    return tail[cut:] if cut >= 0 else ""


def _rest(url: str) -> str:
    p = urlsplit(url)
    return p.path + (f"?{p.query}" if p.query else "")


def moved_prefix(entry_urls: list[str], links: list[str], in_scope) -> tuple[str, str] | None:
    """(old prefix, new prefix): the one change of the part before a shared end that takes at
    least MIN_PAIRS of the entries (none of them in the crawl's scope, `in_scope(url)`) to links of
    the home page (`links`, in its scope), each end unique to its link; None where there is none."""
    outside = [u for u in dict.fromkeys(entry_urls) if u and not in_scope(u)]
    if len(outside) < MIN_PAIRS:
        return None
    by_last: dict[str, list[str]] = {}
    for link in dict.fromkeys(links):
        last = _rest(link).rstrip("/").rsplit("/", 1)[-1]
        if last:
            by_last.setdefault(last, []).append(link)
    changes: Counter = Counter()
    for u in outside:
        last = _rest(u).rstrip("/").rsplit("/", 1)[-1]
        matches = [link for link in by_last.get(last, ()) if in_scope(link)]
        if len(matches) != 1:
            continue
        tail = _tail(u, matches[0])
        if len(tail.strip("/")) < MIN_TAIL_CHARS:
            continue
        old, new = u[: len(u) - len(tail)], matches[0][: len(matches[0]) - len(tail)]
        if old != new:
            changes[(old, new)] += 1
    if not changes:
        return None
    (change, n), = changes.most_common(1)
    return change if n >= MIN_PAIRS else None


def rehome(url: str | None, change: tuple[str, str] | None) -> str | None:
    """`url` at the blog's address, where it starts with the old prefix of `change`."""
    if not url or not change or not url.startswith(change[0]):
        return url
    return change[1] + url[len(change[0]):]
