"""Crawler traps: URLs a site can generate without end (calendars, ever-deeper paths, session ids).

The page budget bounds a trapped crawl, but only after it has spent the budget on the trap.
These limits refuse such URLs before they are queued: a URL too long, a path too deep, a path
repeating its own segments (`/blog/blog/`, `/a/b/a/b/`: relative links resolving on themselves), a
query repeating a parameter or carrying too many, and too many query variants of one path
(`/calendar?month=...`, `?sid=...`); the last needs a count across the crawl, kept by the
caller (workers/state.py), so it is `variant_key` here.

What no single URL shows is caught by what the pages bring (`family`, `max_barren`): the pages
of one part of the site (its first path segment under the blog's home, digit runs generalised:
`/calendar/2031/07/` is `calendar`) that, one after another, bring new pages of that same part
and no new post are a trap once there were `max_barren` of them in a row; the part's links are
no longer followed (workers/state.py keeps the count; workers/traverse.py applies it).
A listing that brings posts (`/page/N/`, `/2014/03/`) starts its count again at every post.
"""
from __future__ import annotations

import hashlib
import re
from collections import Counter
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class TrapLimits:
    max_url_length: int = 2048
    max_depth: int = 16  # path segments
    max_repeats: int = 3  # occurrences of one path segment, or of a repeated run of segments
    max_query_variants: int = 1000  # distinct queries of one path (listing pages, archives: fewer)
    max_params: int = 24  # parameters in one query
    max_barren: int = 50  # pages of one part of the site in a row bringing more of it and no post
    max_links: int = 10_000  # links of one page followed (posts first): a page of a million links


DEFAULT = TrapLimits()


def trap_reason(url: str, limits: TrapLimits = DEFAULT) -> str | None:
    """Why `url` looks like a trap (None when it does not); the query-variant limit is the caller's."""
    if len(url) > limits.max_url_length:
        return f"URL longer than {limits.max_url_length} characters"
    try:
        path = urlsplit(url).path
    except ValueError:
        return "unparsable URL"
    query = urlsplit(url).query
    if query:
        names = [q.partition("=")[0].lower() for q in query.split("&") if q]
        if len(names) > limits.max_params:
            return f"query of more than {limits.max_params} parameters"
        name, n = Counter(names).most_common(1)[0]
        if n > limits.max_repeats:
            return f"query repeats the parameter {name[:40]!r} {n} times"
    segments = [s for s in path.split("/") if s]
    if len(segments) > limits.max_depth:
        return f"path deeper than {limits.max_depth} segments"
    counts = Counter(segments)
    if counts and max(counts.values()) >= limits.max_repeats:
        seg, n = counts.most_common(1)[0]
        return f"path repeats the segment {seg[:40]!r} {n} times"
    for a, b in zip(segments, segments[1:]):
        if a == b and not a.isdigit():  # /blog/blog/: a relative link resolved on itself (/03/03/ is a date)
            return f"path repeats the segment {a[:40]!r} back to back"
    if _repeated_run(segments, limits.max_repeats - 1):
        return "path repeats a run of segments"
    return None


def capped(posts: list[str], others: list[str], limits: TrapLimits = DEFAULT) -> tuple[list[str], list[str], int]:
    """A page's (post links, other links) within `max_links` (post links first, then in
    document order), and how many were left out."""
    posts, others = list(dict.fromkeys(posts)), list(dict.fromkeys(others))
    room = limits.max_links
    if len(posts) + len(others) <= room:
        return posts, others, 0
    left = len(posts) + len(others) - room
    posts = posts[:room]
    return posts, others[:max(0, room - len(posts))], left


def _repeated_run(segments: list[str], times: int) -> bool:
    """A run of 2+ segments occurring `times` times back to back (`/a/b/a/b/`)."""
    n = len(segments)
    for size in range(2, n // times + 1):
        for start in range(0, n - size * times + 1):
            run = segments[start:start + size]
            if all(segments[start + k * size:start + (k + 1) * size] == run for k in range(1, times)):
                return True
    return False


def variant_key(url: str) -> str | None:
    """The path a URL with a query is a variant of (hashed, short), None without a query."""
    p = urlsplit(url)
    if not p.query:
        return None
    return hashlib.sha1(f"{p.netloc}{p.path}".encode()).hexdigest()[:16]


_DIGITS = re.compile(r"\d+")


def family(url: str, home: str) -> str:
    """The part of the site `url` is in, for the count of pages that bring nothing new but
    more of themselves: its first path segment under `home`'s path, digit runs as `N`
    (`/calendar/2031/07/` -> `calendar`, `/2014/03/` -> `N`, `/?page=3` and the home -> ``),
    past a front controller (`/index.php/all/2005/` -> `index.php/all`).
    A URL outside the home's path is its own first segment with a leading `/`."""
    try:
        path, base = urlsplit(url).path, urlsplit(home).path
    except ValueError:
        return "?"
    base = base if base.endswith("/") else base.rsplit("/", 1)[0] + "/"
    if path.startswith(base):
        rest, lead = path[len(base):], ""
    else:
        rest, lead = path.lstrip("/"), "/"
    parts = rest.split("/", 2)
    first = parts[0]
    if _SCRIPT.match(first) and len(parts) > 1 and parts[1]:  # a front controller: /index.php/ikke/...
        first += "/" + parts[1]
    return lead + _DIGITS.sub("N", first)[:80]


# a script every URL of a site runs through (index.php/<blog>/...): no part of the site of its own
_SCRIPT = re.compile(r"^[\w.-]+\.(?:php\d?|cgi|pl|aspx?|jsp|py)$", re.I)


def family_pattern(home: str, fam: str) -> str:
    """How the report names a family: the paths it covers (`/blog/calendar/*`)."""
    base = urlsplit(home).path or "/"
    base = base if base.endswith("/") else base.rsplit("/", 1)[0] + "/"
    if fam.startswith("/"):
        return fam + "/*"
    return f"{base}?*" if not fam else f"{base}{fam}/*"
