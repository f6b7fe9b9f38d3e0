"""What an update crawl may leave unread: which pages cannot hold a post newer than `since`.

An update crawl (UpdateCrawl(url, since)) reads what is new, not the whole blog. What says a
page is old comes from the blog itself: the day a post's URL carries, the dates its feed and
sitemap give, the year/month of a date archive, and the order of its listings (newest first:
once a listing shows only posts older than `since`, its next pages show older ones still).

    older(day, since)                   a day before `since` (one day's margin: time zones)
    days_exact(pairs, printed)          do a blog's URLs and zoned feed give the days its pages print?
    since_cut(since, exact)             the `since` older() is given (no margin for such a blog)
    printed_day(day, exact)             a day the blog prints itself, as older() is given it (no margin)
    record_day(published, source, exact)  the day a post read is judged by: its record's
    entry_day(entry, exact)             the day a feed entry is of (published, updated, its URL's)
    archive_end(url, home)              the last day a date archive (/2019/, /2019/05/) covers
    series(url)                         (the listing a page number belongs to, the number)
    next_in_series(url, links)          its next page under a URL of its own (a mirror's file names)
    listing_cut(days)                   which of a listing's post links (document order) are old
    reaches_past(days, since)           a listing page that runs newest first down past `since`
    read_cut(days, since, starts_new)   the same judged on the days its posts gave once read, top first

Pure: no Celery, no Redis.
"""
from __future__ import annotations

import calendar
import datetime as dt
import re
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit, urlunsplit

from tasks.discover.canonical import MONTH_FILE
from tasks.discover.urls import anchors_to
from tasks.text.calendars import jalali_day
from tasks.text.dates import parse_date, url_day

__all__ = ["older", "days_exact", "since_cut", "printed_day", "record_day", "twin_days", "day_before", "zoned", "day_of", "entry_day", "archive_end", "series", "next_in_series", "listing_cut", "reaches_past", "items_reach", "read_cut", "future", "MARGIN_DAYS"]

MARGIN_DAYS = 1  # a URL's day may be a day off the post's date (time zones): kept, not skipped
EXACT_MIN = 5  # training pages whose given and printed days must all agree before the margin is left

_ARCHIVE = re.compile(r"^(?P<pre>/(?:[^/]+/)?)(?P<y>(?:19|20)\d\d)(?:/(?P<m>0?[1-9]|1[0-2])(?:/(?P<d>0?[1-9]|[12]\d|3[01]))?)?"
                      r"(?:/(?:page/\d+/?)?)?$")
_ARCHIVE_FILE = MONTH_FILE  # a monthly archive named by a file of its own: /archives/2004_05.html
# "p" too (Jekyll's paginate_path /p/:num/): read only for pages that are no posts by the
# blog's pattern (canonical.is_listing leaves it out: /p/123/ is a post's address on some blogs)
_PAGE_PATH = re.compile(r"^(?P<base>.*?/)(?:(?:page|seite|pagina|pg|p)/|page-?)(?P<n>\d+)/?$", re.I)  # /page2/: Jekyll
_PAGE_FILE = re.compile(r"^(?P<base>.*?/)(?:index|page|p)-?(?P<n>\d{1,4})\.html?$", re.I)  # /index2.html, /a/P2.html
_PAGE_QUERY = ("page", "paged", "pg")
# a query parameter that bounds a listing's posts by a date from above: updated-max, before, until
_BOUND_PARAM = re.compile(r"(?:^|[-_.])(?:max|before|until|end|to)$", re.I)


def day_of(value: str | None) -> str | None:
    """The ISO day ("YYYY-MM-DD") a date string starts with, or None."""
    if not value or not isinstance(value, str) or not re.match(r"^\d{4}-\d\d-\d\d", value):
        return None
    return value[:10]


def entry_day(e: dict | None, exact: bool = False) -> str | None:
    """The day a feed entry is of: its published, else its updated, else its URL's day. With
    `exact` (older() is given since_cut(since, True): no time zones' margin), a date that carries
    no zone of its own (a feed in UTC, a bare day) is given as the latest local day it may be, the
    day after: the margin such a date still needs."""
    if not e:
        return None
    given = e.get("published") if day_of(e.get("published")) else e.get("updated")
    day = day_of(given)
    if not day:
        return url_day(e.get("url"))
    return _minus(day, -MARGIN_DAYS) if exact and not zoned(given) else day


def day_before(day: str, days: int = 1) -> str:
    """The ISO day `days` before `day` (after it where negative); `day` as it is where it is no day."""
    return _minus(day, days)


def _minus(day: str, days: int) -> str:
    try:
        return (dt.date.fromisoformat(day[:10]) - dt.timedelta(days=days)).isoformat()
    except ValueError:
        return day[:10]


def older(day: str | None, since: str | None, margin: int = MARGIN_DAYS) -> bool:
    """Is `day` (ISO) before `since` by more than `margin` days? Unknown: no."""
    d = day_of(day)
    s = day_of(since)
    return bool(d and s and d < _minus(s, margin))


def days_exact(pairs: list[tuple[str | None, str | None]], printed: set[str] | list[str] | None = None) -> bool:
    """Are the days a blog gives (`pairs`: (given, printed) for each training page whose date rule
    read a day; given: its URL's day or month, its feed entry's day where the date carries a zone)
    the days its post pages print, on every page compared, with the pages printing at least
    EXACT_MIN different days (`printed`, else the pairs' own)? Then a day they give before `since`
    is a post older than `since`, and a day a page prints is compared as it is: the time zones'
    margin (a URL written in UTC, a feed in another zone than the page) is not needed. A date
    with no zone (a feed in UTC) is no veto: entry_day(exact=True) gives it its margin."""
    pairs = [(g if g and re.fullmatch(r"\d{4}-\d\d", g) else day_of(g), day_of(p)) for g, p in pairs]
    pairs = [(g, p) for g, p in pairs if g and p]
    days = {day_of(d) for d in printed or ()} | {p for _, p in pairs}
    return len(days - {None}) >= EXACT_MIN and all(p.startswith(g) for g, p in pairs)


def zoned(value: str | None) -> bool:
    """Does an ISO date carry a time with an offset other than UTC's (a feed written in the
    blog's own zone, whose days are the days it lives by)?"""
    return bool(value and re.search(r"T\d\d:\d\d(?::\d\d(?:\.\d+)?)?[+-](?!00:?00$)\d\d:?\d\d$", value))


def since_cut(since: str | None, exact: bool) -> str | None:
    """The `since` that older() is given: `since`'s day, or, where the blog's days are exact
    (days_exact), the day after it: older() keeps MARGIN_DAYS for time zones, which such a blog
    does not need (a post of the day before `since` is old)."""
    s = day_of(since)
    if not s or not exact:
        return s
    try:
        return (dt.date.fromisoformat(s) + dt.timedelta(days=MARGIN_DAYS)).isoformat()
    except ValueError:
        return s


def printed_day(day: str | None, exact: bool) -> str | None:
    """A day the blog prints itself (beside a post link in a listing, on a post page as its record
    carries it), as older() is to be given it: the record's own day, compared with `since` as it
    is (no time zones' margin: there is no other zone's day to allow for). older() keeps
    MARGIN_DAYS where the blog's days are not exact (since_cut), so there it is given a day early."""
    d = day_of(day)
    return d if not d or exact else _minus(d, MARGIN_DAYS)


PAGE_SOURCES = ("rule", "span", "jsonld", "microdata", "meta", "page")  # a record's day read off its page


def record_day(published: str | None, source: str | None, exact: bool) -> str | None:
    """The day an update crawl judges a post read by, as older() is to be given it: its record's
    day. One its page gives as a day, or as a time in the blog's own zone, is the day it prints
    (printed_day); a time in UTC, or a day its URL or its feed gave, keeps the margin."""
    d = day_of(published)
    if not d or source not in PAGE_SOURCES or (re.search(r"T\d", published) and not zoned(published)):
        return d
    return printed_day(d, exact)


def future(since: str | None, today: str | None = None) -> bool:
    """Is `since` after today (UTC)? Then no post can be newer: nothing to read."""
    s = day_of(since)
    today = today or dt.datetime.now(dt.timezone.utc).date().isoformat()
    return bool(s and s > today)


def archive_end(url: str, home: str | None = None) -> str | None:
    """The last day a date archive page covers (/2019/ -> 2019-12-31, /blog/2019/05/ ->
    2019-05-31, ?m=201905 -> 2019-05-31, /archives/2019_05.html -> 2019-05-31), or the day a
    listing's query bounds its posts by (?updated-max=2012-03-05T09:14:00-05:00, ?before=2019-05-01:
    the posts before it, newest first), or None where the URL is no date archive."""
    p = urlsplit(url)
    q = dict(parse_qsl(p.query))
    saved = re.split(r"%3F", p.path, maxsplit=1, flags=re.I)  # a static mirror's copy: search%3Fupdated-max=...html
    bounds = {**q, **(dict(parse_qsl(unquote(saved[1]))) if len(saved) > 1 else {})}
    bound = next((day_of(v) for k, v in bounds.items() if _BOUND_PARAM.search(k) and day_of(v)), None)
    if bound:
        return bound
    m = re.fullmatch(r"((?:19|20)\d\d)(0[1-9]|1[0-2])?(\d\d)?", q.get("m", ""))
    if m:  # WordPress's plain archives
        y, mo, d = int(m.group(1)), m.group(2), m.group(3)
    else:
        path = p.path or "/"
        if home:
            hp = (urlsplit(home).path or "/").rstrip("/")
            if hp and path.startswith(hp + "/"):
                path = path[len(hp):]
        a = _ARCHIVE.match(path)
        if a:
            y, mo, d = int(a.group("y")), a.group("m"), a.group("d")
        elif f := _ARCHIVE_FILE.match(path):
            y, mo, d = int(f.group("y")), f.group("m"), None
        else:
            return None
    try:
        if d:
            return dt.date(y, int(mo), int(d)).isoformat()
        if mo:
            return dt.date(y, int(mo), calendar.monthrange(y, int(mo))[1]).isoformat()
        return dt.date(y, 12, 31).isoformat()
    except ValueError:
        return None


def series(url: str) -> tuple[str, int] | None:
    """(the listing a numbered page belongs to, its number): /page/3/ -> ("/", 3),
    /tag/x/page/2/ -> ("/tag/x/", 2), ?paged=4 -> (url without it, 4), ?page=1&paged=4 ->
    (url without paged, 4); None for other URLs."""
    p = urlsplit(url)
    for rx in (_PAGE_PATH, _PAGE_FILE):
        m = rx.match(p.path or "/")
        if m:
            return urlunsplit((p.scheme, p.netloc, m.group("base"), p.query, "")), int(m.group("n"))
    q = parse_qsl(p.query, keep_blank_values=True)
    # (two numbers, ?page=1&paged=3: the page is the larger, the other a constant; equal, the last)
    numbered = [(int(v), i) for i, (k, v) in enumerate(q) if k.lower() in _PAGE_QUERY and v.isdigit()]
    if numbered:
        n, i = max(numbered)
        rest = urlencode(q[:i] + q[i + 1:])
        return urlunsplit((p.scheme, p.netloc, p.path or "/", rest, "")), n
    return None


def next_in_series(url: str, links) -> str | None:
    """The one link among `links` that is the next page of `url`'s listing under a URL of its
    own: page n + 1 by the same query but the number, in the same folder, another base (a
    mirror's file names, `ikke8b63.html?blog=5&paged=2` then `ikke4aa9.html?blog=5&paged=3`);
    None where the listing's own base names its next page, or where two links could be it."""
    s = series(url)
    if not s:
        return None
    base, n = s
    folder, rest = _folder_query(base)
    found = set()
    for u in links:
        t = series(u)
        if not t or t[1] != n + 1:
            continue
        if t[0] == base:
            return None
        if _folder_query(t[0]) == (folder, rest):
            found.add(u)
    return found.pop() if len(found) == 1 else None


def _folder_query(base: str) -> tuple[str, str]:
    p = urlsplit(base)
    return urlunsplit((p.scheme, p.netloc, p.path.rsplit("/", 1)[0] + "/", "", "")), p.query


def listing_cut(days: list[str | None], since: str) -> tuple[bool, list[bool]]:
    """A listing's post links in document order, by the day each is known to be of (None:
    unknown): (past, old) where `past` says the listing shows only posts older than `since`
    (some dated, none new) and old[i] that link i cannot be new: dated before `since`, or
    undated but after an old dated link in a listing whose dated links run newest first
    (the listing proves the order)."""
    dated = [d for d in days if day_of(d)]
    if not dated:
        return False, [False] * len(days)
    past = not any(not older(d, since) for d in dated)
    descending = all(a >= b for a, b in zip(dated, dated[1:]))
    old, seen_old = [], False
    for d in days:
        if day_of(d):
            o = older(d, since)
            seen_old = seen_old or o
            old.append(o)
        else:
            old.append(past or (descending and seen_old))
    return past, old


def reaches_past(days: list[str | None], since: str) -> bool:
    """Does a listing page (its post links' days in document order) run newest first down to a
    post older than `since`? Then its later pages show older posts only. Two dated links at
    least, in order, the last one old: the page itself proves the order."""
    dated = [d for d in days if day_of(d)]
    return (len(dated) >= 2 and all(a >= b for a, b in zip(dated, dated[1:]))
            and older(dated[-1], since))


def read_cut(days: list[str | None], since: str, starts_new: bool = False) -> int | None:
    """The index of a listing's post link (document order) after which no link can be new, judged
    on the days known so far from the top: each link's day, "" for a post read and found undated,
    None for one not read yet (the first such ends the run judged). Two dated links at least,
    newest first, the last one old, as `reaches_past`; with `starts_new` the first dated one must
    be new too (the home page, whose links may open with a widget of older posts). The days known
    below the cut must run newest first too: a listing in another order (by title, by updates)
    may open newest first and still list a new post below an old one. None: no cut."""
    dated: list[str] = []
    cut, judged = None, True
    for i, d in enumerate(days):
        if d is None:
            judged = False  # (a day below not known yet: the cut as judged above it, the order checked on)
            continue
        d = day_of(d)
        if not d:
            continue
        if dated and d > dated[-1]:
            return None  # not newest first (even below a link not read yet): the page proves no order
        dated.append(d)
        if judged and cut is None and len(dated) >= 2 and older(d, since) and not (starts_new and older(dated[0], since)):
            cut = i
    return cut


MAX_ITEM_LEVELS = 5  # ancestors of a post link searched for the listing item that holds it
MAX_DATE_TEXT = 60  # characters of a text node read as a printed date


def printed_days(root, base_url: str, posts: list[str], exact: bool = False, shown_only: bool = False) -> dict[str, str]:
    """The day a listing prints beside each of its post links (a card's <time>, an archive
    line's "14 March 2003"): url -> ISO day. The listing's items are the links at one place (the
    same tags and classes a few levels up: a card's title), the place whose items show the most
    days (a "recent posts" widget on every page, with more links and no day, is no listing's
    items; a link outside the items, in a widget or an excerpt, gets no day). A link's item is
    its largest ancestor (a few levels up) that holds no other item's link; its date is the
    item's first <time> (the day its text shows, else its datetime's), else its first short text
    that reads as a date. Links whose item shows none are left out. A datetime in UTC whose text
    shows no day near it is given, with `exact` (older() being given since_cut(since, True)), as
    the latest local day it may be; with `shown_only`, not at all (only days a reader sees)."""
    wanted = set(posts)
    if not wanted or root is None:
        return {}
    links = dict(anchors_to(root, base_url, wanted))
    groups = [dict(g) for g in _places(links.items()).values() if len({u for _, u in g}) >= 2] or [links]
    best: dict[str, str] = {}
    for group in groups:
        days = _items_days(group, exact, shown_only)
        if len(days) > len(best):
            best = days
    return best


def twin_days(days: dict[str, str], urls: list[str]) -> dict[str, str]:
    """The day of each of `urls` that is a dated link's URL but for the trailing slash (an
    excerpt's "/slug" beside the card's "/slug/"): the same page, a server answers one with the
    other. Not one of the listing's items: its place in the page proves no order."""
    return {u: days[t] for u in urls if u not in days and (t := _twin(u)) in days}


def _twin(url: str) -> str:
    """`url` with its path's trailing slash taken off, or put on where it has none."""
    p = urlsplit(url)
    path = p.path or "/"
    if path == "/":
        return url
    path = path[:-1] if path.endswith("/") else path + "/"
    return urlunsplit((p.scheme, p.netloc, path, p.query, p.fragment))


def _items_days(links: dict, exact: bool = False, shown_only: bool = False) -> dict[str, str]:
    """url -> day of each link's item, the items being bounded by one another (`printed_days`)."""
    owner: dict = {}  # element -> the links' URLs below it
    for a, u in links.items():
        el = a
        for _ in range(MAX_ITEM_LEVELS):
            el = el.getparent()
            if el is None:
                break
            owner.setdefault(el, set()).add(u)
    out: dict[str, str] = {}
    for a, u in links.items():
        if u in out:
            continue
        item, el = None, a
        for _ in range(MAX_ITEM_LEVELS):
            el = el.getparent()
            if el is None or owner.get(el, {u}) != {u}:
                break
            item = el
        day = _item_day(item, exact, shown_only) if item is not None else None
        if day:
            out[u] = day
    return out


def at_items_place(root, base_url: str, posts: list[str], others: list[str], dated=()) -> set[str]:
    """The links of `others` a listing shows where its post links sit (the place most of them
    share, `_place`: a card's title; first the place most of those it prints a day beside share,
    `dated`, not a "recent posts" widget with more links and no day), such as older posts at
    another URL scheme listed among them; not a link inside an excerpt (a post citing an older
    one). Where fewer than two post links share a place, nothing tells: every one of `others`."""
    wanted, theirs = set(posts), set(others)
    if root is None or not theirs:
        return set()
    at: dict = {}
    mine: list = []
    for a, u in anchors_to(root, base_url, wanted | theirs):
        if u in wanted:
            at.setdefault(_place(a), set()).add(u)
        else:
            mine.append((_place(a), u))
    dated = set(dated)
    top = max(at.items(), key=lambda kv: (len(kv[1] & dated), len(kv[1])), default=(None, set()))
    if len(top[1]) < 2:
        return theirs
    return {u for place, u in mine if place == top[0]}


def items_reach(root, base_url: str, pairs: list[tuple[str, str | None]], since: str) -> bool:
    """Do a listing page's items (its dated links at the place most of them share: a card's
    title, in document order) open with a post newer than `since` and run newest first down to
    an older one (reaches_past)? A home page that lists every post, dated, shows every new post
    so; a widget of older posts elsewhere on it (fewer, or at another place) is not its items."""
    day = {u: day_of(d) for u, d in pairs if day_of(d)}
    if root is None or len(day) < 2:
        return False
    groups = [list(dict.fromkeys(u for _, u in g)) for g in _places(anchors_to(root, base_url, set(day))).values()]
    items = max(groups, key=len, default=[])
    days = [day[u] for u in items]
    return bool(days) and not older(days[0], since) and reaches_past(days, since)


def _places(anchors) -> dict:
    """place (`_place`) -> [(a, url)], in document order: a page's links grouped by where they sit."""
    at: dict = {}
    for a, u in anchors:
        at.setdefault(_place(a), []).append((a, u))
    return at


def _place(a, levels: int = 3) -> tuple:
    out, el = [], a
    for _ in range(levels):
        if el is None:
            break
        out.append((el.tag, " ".join(sorted((el.get("class") or "").split()))))
        el = el.getparent()
    return tuple(out)


def _item_day(item, exact: bool = False, shown_only: bool = False) -> str | None:
    """The day an item prints, or the day of a time in UTC it gives (with `exact` as the latest
    local day it may be). Both keep older()'s margin where the blog's days are not exact: a day a
    listing prints beside a link may be another item's (a messy page's sidebar), which the
    margin keeps from leaving a new post."""
    for t in item.iter("time"):
        given = t.get("datetime")
        shown = day_of(parse_date(" ".join((t.text or "").split())) or None)
        if day_of(given) and re.search(r"T\d", given) and not zoned(given):  # a time in UTC (or no zone)
            if shown and _minus(day_of(given), MARGIN_DAYS) <= shown <= _minus(day_of(given), -MARGIN_DAYS):
                return shown  # the day the reader sees, in the blog's own zone
            if shown_only:
                return None
            return _minus(day_of(given), -MARGIN_DAYS) if exact else day_of(given)
        day = day_of(given) or shown
        if day:
            return day
    for text in item.itertext():
        text = " ".join(text.split())
        if 6 <= len(text) <= MAX_DATE_TEXT and any(c.isdigit() for c in text):
            day = day_of(parse_date(text)) or jalali_day(text)
            if day:
                return day
    return None
