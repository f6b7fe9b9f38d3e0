"""Crawler traps: URLs a site can generate without end (calendars, ever-deeper paths, session ids).

The page budget bounds a trapped crawl, but only after it has spent the budget on the trap.
These limits refuse such URLs before they are queued: a URL too long, a path too deep, a path
repeating its own segments (`/blog/blog/`, `/a/b/a/b/`: relative links resolving on themselves), and too
many query variants of one path (`/calendar?month=...`, `?sid=...`); the last needs a count
across the crawl, kept by the caller (workers/state.py), so it is `variant_key` here.
"""
from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass
from urllib.parse import urlsplit


@dataclass(frozen=True)
class TrapLimits:
    max_url_length: int = 2048
    max_depth: int = 16  # path segments
    max_repeats: int = 3  # occurrences of one path segment, or of a repeated run of segments
    max_query_variants: int = 1000  # distinct queries of one path (listing pages, archives: fewer)


DEFAULT = TrapLimits()


def trap_reason(url: str, limits: TrapLimits = DEFAULT) -> str | None:
    """Why `url` looks like a trap (None when it does not); the query-variant limit is the caller's."""
    if len(url) > limits.max_url_length:
        return f"URL longer than {limits.max_url_length} characters"
    try:
        path = urlsplit(url).path
    except ValueError:
        return "unparsable URL"
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
