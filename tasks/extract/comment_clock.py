"""The clock a blog's pages print its comments' times in, read off its comment feeds.

A theme may print a comment's local time with no zone ("3 mai 2018 à 14:22") or label its local
time as UTC (a `datetime` attribute written with the server's clock and "+00:00"), while the
post's comment feed gives each comment's instant. Where every comment that a sample post's page
and feed both time is off by one offset (whole quarter hours, 14 hours at most), the pages'
times are that offset's wall clock: read so, a page says what its feed would, and the blog's
comment feeds need not be read beside every post (issues 33 and 35: one request a post). A
sample whose comments show two offsets (a summer time between them) learns none, and the feeds
are read as before. Pure functions.
"""
from __future__ import annotations

import datetime as dt
from typing import Iterable

MAX_OFFSET = 14 * 60  # minutes east or west of UTC a clock can be
STEP = 15  # offsets are whole quarter hours
MIN_TIMED = 3  # comments both sources time before an offset is believed
SAME_MINUTE = 60.0  # seconds two times of one comment may differ by (a page prints the minute, a feed the second)


def _timed(iso: str | None) -> dt.datetime | None:
    """An ISO date with a time of day, parsed; None for a day alone or no date."""
    if not isinstance(iso, str) or len(iso) <= 10:
        return None
    try:
        return dt.datetime.fromisoformat(iso)
    except ValueError:
        return None


def offset(pairs: Iterable[tuple[str | None, str | None]]) -> int | None:
    """Minutes east of UTC of the wall clock the page's times are printed in, from (page time,
    feed time) pairs of the same comments: the one offset every pair that both sources time
    agrees on, where MIN_TIMED pairs do; None otherwise. A page's own zone label is not read
    (it is what may be wrong): only its wall time."""
    found: set[int] = set()
    n = 0
    for page, feed in pairs:
        p, f = _timed(page), _timed(feed)
        if p is None or f is None or f.tzinfo is None:
            continue
        wall = p.replace(tzinfo=None)
        utc = f.astimezone(dt.timezone.utc).replace(tzinfo=None)
        minutes = (wall - utc).total_seconds() / 60
        step = round(minutes / STEP) * STEP
        if abs(minutes - step) * 60 >= SAME_MINUTE or abs(step) > MAX_OFFSET:
            return None
        found.add(step)
        n += 1
    return found.pop() if n >= MIN_TIMED and len(found) == 1 else None


def read_in(iso: str | None, minutes) -> str | None:
    """A page's comment time read as the wall clock `minutes` east of UTC (its own zone label
    dropped); a day alone, or no valid offset, as it is."""
    p = _timed(iso)
    if p is None or isinstance(minutes, bool) or not isinstance(minutes, int) or abs(minutes) > MAX_OFFSET:
        return iso
    return p.replace(tzinfo=dt.timezone(dt.timedelta(minutes=minutes))).isoformat()


def same_time(a: str | None, b: str | None) -> bool:
    """Do two dates of one comment say the same: the same instant within a minute where both
    carry a zone, else the same text."""
    x, y = _timed(a), _timed(b)
    if x is None or y is None or x.tzinfo is None or y.tzinfo is None:
        return a == b
    return abs((x - y).total_seconds()) < SAME_MINUTE
