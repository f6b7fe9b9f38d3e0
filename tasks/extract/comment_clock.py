"""The clock a blog's pages print its comments' times in, read off its comment feeds.

A theme may print a comment's local time with no zone ("3 mai 2018 à 14:22") or label its local
time as UTC (a `datetime` attribute written with the server's clock and "+00:00"), while the
post's comment feed gives each comment's instant. Where every comment that a sample post's page
and feed both time is explained by one clock, the pages' times are read in it: a page then says
what its feed would, and the blog's comment feeds need not be read beside every post (issues 33
and 35: one request a post).

A clock is the set of time zones (tz database names, and the one fixed offset where every pair
shows the same) whose wall time at each sampled comment's instant is what the page prints. One
season's sample cannot tell a zone with summer time from one without, and a sample spanning
both seasons keeps only the zones whose rules explain both (-4 h in September, -5 h in December:
the eastern North American zones). A printed time is read where every zone of the clock gives it
the same offset (not in an hour the clocks skip or repeat); elsewhere it stays as printed, and
its post reads its feed, whose times then narrow the clock to the zones that explain them too
(`narrow`: a blog sampled in summer learns its winter at its first winter post). Pure functions.
"""
from __future__ import annotations

import datetime as dt
import functools
import re
import zoneinfo
from typing import Iterable

MAX_OFFSET = 14 * 60  # minutes east or west of UTC a clock can be
STEP = 15  # a fixed offset is whole quarter hours
MIN_TIMED = 3  # comments both sources time before a clock is believed
MAX_ZONES = 250  # a clock naming more zones than this is no clock (bounds the rule's size)
SAME_MINUTE = 60.0  # seconds two times of one comment may differ by (a page prints the minute, a feed the second)
_FIXED = re.compile(r"^UTC([+-])(\d\d):(\d\d)$")


@functools.lru_cache(maxsize=1)
def _zone_names() -> tuple[str, ...]:
    """The tz database's zones (the system's, else the `tzdata` package's), links included."""
    try:
        names = zoneinfo.available_timezones()
    except Exception:  # no tz database at all: fixed offsets only
        return ()
    return tuple(sorted(n for n in names if not n.startswith(("posix", "right")) and n not in ("Factory", "localtime")))


@functools.lru_cache(maxsize=1024)
def _zone(name: str) -> dt.tzinfo | None:
    """A clock's zone by name: "UTC+02:00" a fixed offset, else a tz database zone."""
    m = _FIXED.match(name) if isinstance(name, str) else None
    if m:
        minutes = int(m.group(2)) * 60 + int(m.group(3))
        return dt.timezone(dt.timedelta(minutes=minutes if m.group(1) == "+" else -minutes)) \
            if minutes <= MAX_OFFSET else None
    try:
        return zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError, TypeError, OSError):
        return None


def _fixed_name(minutes: int) -> str:
    return f"UTC{'+' if minutes >= 0 else '-'}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"


def _timed(iso: str | None) -> dt.datetime | None:
    """An ISO date with a time of day, parsed; None for a day alone or no date."""
    if not isinstance(iso, str) or len(iso) <= 10:
        return None
    try:
        return dt.datetime.fromisoformat(iso)
    except ValueError:
        return None


def _shows(zone: dt.tzinfo, wall: dt.datetime, instant: dt.datetime) -> bool:
    """Does the zone's wall clock at `instant` read `wall` (within a minute)?"""
    local = instant.astimezone(zone).replace(tzinfo=None)
    return abs((local - wall).total_seconds()) < SAME_MINUTE


def learn(pairs: Iterable[tuple[str | None, str | None]]) -> dict | None:
    """{"zones": [names]}: the zones whose wall clock the page's times are printed in, from
    (page time, feed time) pairs of the same comments (MIN_TIMED at least, the feed's carrying
    a zone); None where no zone explains every pair, where the page's own labels are right
    (nothing to learn), or where too many zones would. A page's own zone label is not read (it is
    what may be wrong)."""
    timed: list[tuple[dt.datetime, dt.datetime]] = []
    right = 0
    for page, feed in pairs:
        p, f = _timed(page), _timed(feed)
        if p is None or f is None or f.tzinfo is None:
            continue
        right += p.tzinfo is not None and same_time(page, feed)
        timed.append((p.replace(tzinfo=None), f))
    if len(timed) < MIN_TIMED or right == len(timed):
        return None  # (times the page labels right need no clock)
    names = [n for n in _zone_names() if all(_shows(_zone(n), w, f) for w, f in timed)]
    offsets = {round((w - f.astimezone(dt.timezone.utc).replace(tzinfo=None)).total_seconds() / 60 / STEP) * STEP
               for w, f in timed}
    if len(offsets) == 1:
        fixed = _fixed_name(offsets.pop())
        if _zone(fixed) is not None and all(_shows(_zone(fixed), w, f) for w, f in timed):
            names.append(fixed)
    if not names or len(names) > MAX_ZONES:
        return None
    return {"zones": names}


def narrow(clock, pairs: Iterable[tuple[str | None, str | None]]) -> dict | None:
    """The clock's zones that also explain these (page time, feed time) pairs of another post,
    where they are fewer (a post of another season read its feed: the zones that part there are
    told apart); None where nothing changes, where no pair is timed, or where none of the zones
    explains them (a pairing the clock cannot account for teaches nothing)."""
    names = _names(clock)
    if names is None:
        return None
    timed = [(p.replace(tzinfo=None), f) for p, f in ((_timed(a), _timed(b)) for a, b in pairs)
             if p is not None and f is not None and f.tzinfo is not None]
    if not timed:
        return None
    kept = [n for n in names if _zone(n) is not None and all(_shows(_zone(n), w, f) for w, f in timed)]
    return {"zones": kept} if kept and len(kept) < len(names) else None


def _names(clock) -> tuple[str, ...] | None:
    """The clock's zone names, or None for no valid clock (a rule from elsewhere is not trusted)."""
    if not isinstance(clock, dict) or not isinstance(clock.get("zones"), list) or \
            not 0 < len(clock["zones"]) <= MAX_ZONES or not all(isinstance(n, str) for n in clock["zones"]):
        return None
    return tuple(clock["zones"])


@functools.lru_cache(maxsize=4096)
def _offset_at(wall: dt.datetime, names: tuple[str, ...]) -> dt.timedelta | None:
    zones = [_zone(n) for n in names]
    if any(z is None for z in zones):
        return None
    offsets = {wall.replace(tzinfo=z, fold=fold).utcoffset() for z in zones for fold in (0, 1)}
    return offsets.pop() if len(offsets) == 1 else None


def _offset(iso: str | None, clock) -> dt.timedelta | None:
    """The one offset every zone of the clock gives this printed wall time; None where they
    differ, where the time falls in an hour the clocks skip or repeat, or for no valid clock."""
    p, names = _timed(iso), _names(clock)
    if p is None or names is None:
        return None
    return _offset_at(p.replace(tzinfo=None), names)


def holds(iso: str | None, clock) -> bool:
    """Does the clock read this printed time (every zone of it agrees on its offset)? A day
    alone, or no clock: nothing to read, so yes."""
    if _timed(iso) is None or clock is None:
        return True
    return _offset(iso, clock) is not None


def read_in(iso: str | None, clock) -> str | None:
    """A page's comment time read in the blog's clock (its own zone label dropped), where the
    clock holds for it; otherwise as printed."""
    offset = _offset(iso, clock)
    if offset is None:
        return iso
    return _timed(iso).replace(tzinfo=dt.timezone(offset)).isoformat()


def same_time(a: str | None, b: str | None) -> bool:
    """Do two dates of one comment say the same: the same instant within a minute where both
    carry a zone, else the same text."""
    x, y = _timed(a), _timed(b)
    if x is None or y is None or x.tzinfo is None or y.tzinfo is None:
        return a == b
    return abs((x - y).total_seconds()) < SAME_MINUTE
