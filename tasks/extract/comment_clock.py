"""The clock a blog's pages print its comments' times in, read off its comment feeds.

A theme may print a comment's local time with no zone ("3 mai 2018 à 14:22") or label its local
time as UTC (a `datetime` attribute written with the server's clock and "+00:00"), while the
post's comment feed gives each comment's instant. Where every comment that a sample post's page
and feed both time is off by one offset (whole quarter hours, 14 hours at most), the pages'
times are that offset's wall clock: read so, a page says what its feed would, and the blog's
comment feeds need not be read beside every post (issues 33 and 35: one request a post).

Summer time moves a local clock by an hour for half the year, and one season's sample cannot
tell whether the blog's zone has it. So a clock learned on comments of one season (northern
winter, November to February, or summer, May to September) reads only times of that season; a
sample spanning both with one offset shows a zone without summer time, and its clock reads all.
A comment of another season keeps its time as printed, and its post reads its feed. Pure functions.
"""
from __future__ import annotations

import datetime as dt
from typing import Iterable

MAX_OFFSET = 14 * 60  # minutes east or west of UTC a clock can be
STEP = 15  # offsets are whole quarter hours
MIN_TIMED = 3  # comments both sources time before an offset is believed
SAME_MINUTE = 60.0  # seconds two times of one comment may differ by (a page prints the minute, a feed the second)
SEASONS = {"winter": {11, 12, 1, 2}, "summer": {5, 6, 7, 8, 9}}  # (March, April, October: clocks change)
ALL = "all"


def _timed(iso: str | None) -> dt.datetime | None:
    """An ISO date with a time of day, parsed; None for a day alone or no date."""
    if not isinstance(iso, str) or len(iso) <= 10:
        return None
    try:
        return dt.datetime.fromisoformat(iso)
    except ValueError:
        return None


def _season(month: int) -> str | None:
    return next((name for name, months in SEASONS.items() if month in months), None)


def learn(pairs: Iterable[tuple[str | None, str | None]]) -> dict | None:
    """{"minutes": east of UTC, "season": "winter" | "summer" | "all"}: the wall clock the page's
    times are printed in, from (page time, feed time) pairs of the same comments, where every
    pair both sources time agrees on one offset (MIN_TIMED at least) and their months lie in one
    season, or in both; None otherwise. A page's own zone label is not read (it is what may be wrong)."""
    offsets: set[int] = set()
    seasons: set[str | None] = set()
    n, right = 0, 0
    for page, feed in pairs:
        p, f = _timed(page), _timed(feed)
        if p is None or f is None or f.tzinfo is None:
            continue
        right += p.tzinfo is not None and same_time(page, feed)
        wall = p.replace(tzinfo=None)
        minutes = (wall - f.astimezone(dt.timezone.utc).replace(tzinfo=None)).total_seconds() / 60
        step = round(minutes / STEP) * STEP
        if abs(minutes - step) * 60 >= SAME_MINUTE or abs(step) > MAX_OFFSET:
            return None
        offsets.add(step)
        seasons.add(_season(wall.month))
        n += 1
    if n < MIN_TIMED or right == n or len(offsets) != 1 or None in seasons:
        return None  # (times the page labels right need no clock)
    return {"minutes": offsets.pop(), "season": ALL if len(seasons) > 1 else seasons.pop()}


def _valid(clock) -> bool:
    if not isinstance(clock, dict):
        return False
    m = clock.get("minutes")
    return isinstance(m, int) and not isinstance(m, bool) and abs(m) <= MAX_OFFSET and \
        clock.get("season") in (ALL, *SEASONS)


def holds(iso: str | None, clock) -> bool:
    """Does the clock read this printed time (its season is the clock's)? A day alone, or no
    clock: nothing to read, so yes."""
    p = _timed(iso)
    if p is None or clock is None:
        return True
    return _valid(clock) and (clock["season"] == ALL or p.month in SEASONS[clock["season"]])


def read_in(iso: str | None, clock) -> str | None:
    """A page's comment time read in the blog's clock (its own zone label dropped), where the
    clock holds for it; otherwise as printed."""
    p = _timed(iso)
    if p is None or clock is None or not _valid(clock) or not holds(iso, clock):
        return iso
    return p.replace(tzinfo=dt.timezone(dt.timedelta(minutes=clock["minutes"]))).isoformat()


def same_time(a: str | None, b: str | None) -> bool:
    """Do two dates of one comment say the same: the same instant within a minute where both
    carry a zone, else the same text."""
    x, y = _timed(a), _timed(b)
    if x is None or y is None or x.tzinfo is None or y.tzinfo is None:
        return a == b
    return abs((x - y).total_seconds()) < SAME_MINUTE
