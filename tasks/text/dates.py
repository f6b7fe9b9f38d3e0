"""Dates both ways: a feed date rendered as pages print it, and page text parsed back.

`renderings` gives the extraction targets for the date rule (the paper scores
every node against several renderings and keeps the best); `parse_date` turns
the text a rule extracts back into ISO 8601. Parsing tries cheap regular
expressions first (machine formats, month names in en/fr/es/de, relative
dates) because it runs once per extracted post; dateparser, which is slow, is
only the fallback for the rest.
"""
from __future__ import annotations

import datetime as dt
import email.utils
import re
import unicodedata
from functools import lru_cache

from dateutil.relativedelta import relativedelta

from tasks.text.month_words import MONTH_WORDS

__all__ = ["renderings", "parse_date"]

UTC = dt.timezone.utc
MIN_YEAR, MAX_YEAR = 1980, 2100

EN_MONTHS = ["January", "February", "March", "April", "May", "June", "July",
             "August", "September", "October", "November", "December"]
EN_DAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"]
FR_MONTHS = ["janvier", "février", "mars", "avril", "mai", "juin", "juillet",
             "août", "septembre", "octobre", "novembre", "décembre"]
ES_MONTHS = ["enero", "febrero", "marzo", "abril", "mayo", "junio", "julio",
             "agosto", "septiembre", "octubre", "noviembre", "diciembre"]
DE_MONTHS = ["Januar", "Februar", "März", "April", "Mai", "Juni", "Juli",
             "August", "September", "Oktober", "November", "Dezember"]

# Every spelling a month goes by on a page (lower case, accents folded too).
_MONTH_WORDS: dict[str, int] = {}
for _names in (EN_MONTHS, FR_MONTHS, ES_MONTHS, DE_MONTHS):
    for _i, _n in enumerate(_names, 1):
        _MONTH_WORDS[_n.lower()] = _i
for _i, _abbrs in enumerate([
        "jan janv ene jän", "feb fev fév févr fevr", "mar mär mrz", "apr avr abr",
        "may", "jun", "jul juil", "aug aoû aou ago", "sep sept",
        "oct okt", "nov", "dec déc dic dez"], 1):
    for _a in _abbrs.split():
        _MONTH_WORDS[_a] = _i
_MONTH_WORDS["marz"] = _MONTH_WORDS["maerz"] = 3  # März without umlaut, or with it spelt out
for _w, _i in MONTH_WORDS.items():  # other languages' full names ("19 lutego 2013", "5 Ekim 2014")
    _MONTH_WORDS.setdefault(_w, _i)
for _w, _i in list(_MONTH_WORDS.items()):
    _MONTH_WORDS.setdefault(unicodedata.normalize("NFKD", _w).encode("ascii", "ignore").decode(), _i)

# a letter first: the regular expression engine tries the hundred spellings one by one
# wherever a month could start, and most places (digits, commas) start none
_MONTH_RE = r"(?=[^\W\d_])(?:" + "|".join(sorted((re.escape(w) for w in _MONTH_WORDS), key=len, reverse=True)) + ")"
_TZ_ABBR = {"utc": 0, "gmt": 0, "z": 0, "ut": 0, "est": -5, "edt": -4, "cst": -6, "cdt": -5,
            "mst": -7, "mdt": -6, "pst": -8, "pdt": -7, "cet": 1, "cest": 2, "met": 1,
            "mez": 1, "mesz": 2, "bst": 1, "ist": 5.5, "jst": 9, "aest": 10, "aedt": 11}
_TZ_RE = r"(?P<tz>[+-]\d{2}:?\d{2}|z\b|(?:" + "|".join(sorted(_TZ_ABBR, key=len, reverse=True)) + r")\b)"

# A time following a date: "at 10:00 am", ", 10h30", "à 13 h 47", "um 10:00 Uhr", "- 22:15:07 +0100".
_TIME_AFTER = re.compile(
    r"\s*(?:,|@|-|–|—|\||at|à|a las|a la|um|à partir de)?\s*"
    r"(?P<h>\d{1,2})(?::|\s?h\s?)(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,]\d+)?)?"
    r"\s*(?P<ampm>[ap]\.?\s?m\.?)?(?:\s*uhr)?\s*" + _TZ_RE + "?",
    re.I)

_ISO = re.compile(
    r"(?<!\d)(?P<y>\d{4})-(?P<m>\d{1,2})-(?P<d>\d{1,2})"
    r"(?:[T ](?P<h>\d{2}):(?P<mi>\d{2})(?::(?P<s>\d{2})(?:[.,]\d+)?)?\s*"
    r"(?P<tz>Z|[+-]\d{2}(?::?\d{2})?)?)?(?!\d)", re.I)
_RFC822 = re.compile(
    r"^(?:[a-z]{3},\s*)?\d{1,2}\s+[a-z]{3}\s+\d{2,4}\s+\d{1,2}:\d{2}(?::\d{2})?\s*"
    r"(?:[+-]\d{4}|[a-z]{1,5})?$", re.I)
# "9 March 2014", "9th of March, 2014", "9. März 2014", "9 de marzo de 2014", "1er mars 2014"
_DMY = re.compile(
    r"(?<![\w.])(?P<d>\d{1,2})(?:st|nd|rd|th|er|º|°|\.)?\s*(?:of\s+|de\s+)?"
    r"(?P<mon>" + _MONTH_RE + r")\.?,?\s*(?:de\s+|del\s+)?(?P<y>\d{4})(?![\w])", re.I)
# "March 9, 2014", "Mar 9th 2014", "März 9, 2014"
_MDY = re.compile(
    r"(?<![\w])(?P<mon>" + _MONTH_RE + r")\.?\s*(?P<d>\d{1,2})(?:st|nd|rd|th)?\s*,?\s*(?P<y>\d{4})(?![\w])",
    re.I)
# "2014/03/09", "2014.03.09", "2014年3月9日"
_YMD_NUM = re.compile(r"(?<![\d])(?P<y>\d{4})[/.年](?P<m>\d{1,2})[/.月](?P<d>\d{1,2})日?(?![\d])")
# "03/09/2014", "09.03.2014", "9-3-2014", "23/10-2019" (separators may differ)
# (a dot may be followed by a space: "07. 03. 2010", as Czech, Slovak and German print it)
_NUM_Y = re.compile(r"(?<![\d./-])(?P<a>\d{1,2})(?P<sep>[/-]|\. ?)(?P<b>\d{1,2})(?:[/-]|\. ?)(?P<y>\d{4})(?![\d])")
# 12/14/07, 14.12.07: a two-digit year, read only in a short line that is mostly the date (a
# comment's "Permalink 12/14/07 @ 02:50"), never in prose ("version 1.2.10")
_NUM_YY = re.compile(r"(?<![\w./-])(?:(?P<a>\d{1,2})(?P<sep>/)(?P<b>\d{1,2})/|(?P<a2>\d\d)(?P<sep2>\.)(?P<b2>\d\d)\.)"
                     r"(?P<y>\d{2})(?![\d]|[./-]\d)")  # (with dots, two digits each: 14.12.07, not 1.2.10)
SHORT_DATE_LINE = 40  # characters of a line where a two-digit year is read

_UNITS = {
    "second": "seconds", "seconds": "seconds", "sec": "seconds", "secs": "seconds",
    "seconde": "seconds", "secondes": "seconds", "segundo": "seconds", "segundos": "seconds",
    "sekunde": "seconds", "sekunden": "seconds",
    "minute": "minutes", "minutes": "minutes", "min": "minutes", "mins": "minutes",
    "minuto": "minutes", "minutos": "minutes", "minuten": "minutes",
    "hour": "hours", "hours": "hours", "hr": "hours", "hrs": "hours", "heure": "hours",
    "heures": "hours", "hora": "hours", "horas": "hours", "stunde": "hours", "stunden": "hours",
    "day": "days", "days": "days", "jour": "days", "jours": "days", "día": "days",
    "dia": "days", "días": "days", "dias": "days", "tag": "days", "tage": "days", "tagen": "days",
    "week": "weeks", "weeks": "weeks", "semaine": "weeks", "semaines": "weeks",
    "semana": "weeks", "semanas": "weeks", "woche": "weeks", "wochen": "weeks",
    "month": "months", "months": "months", "mois": "months", "mes": "months",
    "meses": "months", "monat": "months", "monate": "months", "monaten": "months",
    "year": "years", "years": "years", "an": "years", "ans": "years", "année": "years",
    "années": "years", "año": "years", "años": "years", "jahr": "years", "jahre": "years",
    "jahren": "years",
}
_UNIT_RE = "|".join(sorted((re.escape(u) for u in _UNITS), key=len, reverse=True))
_NUM_WORD = r"\d+|an?|one|un|une|uno|una|un|ein|einem|einer"
_REL = [
    re.compile(r"(?<!\w)(?P<n>" + _NUM_WORD + r")\s+(?P<u>" + _UNIT_RE + r")\s+ago(?!\w)", re.I),
    re.compile(r"(?<!\w)il\s+y\s+a\s+(?P<n>" + _NUM_WORD + r")\s+(?P<u>" + _UNIT_RE + r")(?!\w)", re.I),
    re.compile(r"(?<!\w)hace\s+(?P<n>" + _NUM_WORD + r")\s+(?P<u>" + _UNIT_RE + r")(?!\w)", re.I),
    re.compile(r"(?<!\w)vor\s+(?P<n>" + _NUM_WORD + r")\s+(?P<u>" + _UNIT_RE + r")(?!\w)", re.I),
]
_DAY_WORDS = {"today": 0, "aujourd'hui": 0, "aujourd’hui": 0, "hoy": 0, "heute": 0,
              "yesterday": 1, "hier": 1, "ayer": 1, "gestern": 1}
_DAY_WORD_RE = re.compile(r"(?<!\w)(" + "|".join(re.escape(w) for w in _DAY_WORDS) + r")(?!\w)", re.I)
_HAS_TIME = re.compile(r"\d{1,2}(?::|\s?h\s?)\d{2}")


# ---------------------------------------------------------------- helpers

def _now(now: str | dt.datetime | None) -> dt.datetime:
    if isinstance(now, dt.datetime):
        value = now
    elif now:
        value = parse_iso(now) or dt.datetime.now(UTC)
    else:
        value = dt.datetime.now(UTC)
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def parse_iso(iso: str | None) -> dt.datetime | None:
    """An ISO 8601 time as written (its zone, or none), None where it is not one."""
    if not isinstance(iso, str):
        return None
    try:
        value = dt.datetime.fromisoformat(iso.strip().replace("Z", "+00:00").replace("z", "+00:00"))
    except ValueError:
        return None
    return value


_OFFSET = re.compile(r"([+-])(\d{2}):?(\d{2})?")


@lru_cache(maxsize=256)
def _tz(text: str | None) -> dt.tzinfo | None:
    """The zone a date's text names, or None where it names none (none is invented)."""
    if not text:
        return None
    t = text.strip().lower()
    if t in _TZ_ABBR:
        return dt.timezone(dt.timedelta(hours=_TZ_ABBR[t]))
    m = _OFFSET.fullmatch(t)
    if not m:
        return None
    minutes = int(m.group(2)) * 60 + int(m.group(3) or 0)
    if minutes > 14 * 60:
        return None
    return dt.timezone((-1 if m.group(1) == "-" else 1) * dt.timedelta(minutes=minutes))


def _fmt(y: int, m: int, d: int, time: tuple | None = None, tz: dt.tzinfo | None = None) -> str | None:
    """ISO text of a validated date, date only when no time is known, no offset when
    no zone is known ("2014-03-09T10:00:00": local time as the page shows it)."""
    if not MIN_YEAR <= y <= MAX_YEAR:
        return None
    try:
        if time is None:
            return dt.date(y, m, d).isoformat()
        h, mi, s = time
        return dt.datetime(y, m, d, h, mi, s, tzinfo=tz).isoformat()
    except ValueError:
        return None


def _time_after(text: str, pos: int) -> tuple[tuple | None, dt.tzinfo | None]:
    m = _TIME_AFTER.match(text, pos)
    if not m:
        return None, None
    h, mi, s = int(m.group("h")), int(m.group("mi")), int(m.group("s") or 0)
    ampm = (m.group("ampm") or "").lower().replace(".", "").replace(" ", "")
    if ampm == "pm" and h < 12:
        h += 12
    elif ampm == "am" and h == 12:
        h = 0
    if h > 23 or mi > 59 or s > 59:
        return None, None
    return (h, mi, s), _tz(m.group("tz"))


def _month(word: str) -> int | None:
    w = word.lower().rstrip(".")
    return _MONTH_WORDS.get(w) or _MONTH_WORDS.get(
        unicodedata.normalize("NFKD", w).encode("ascii", "ignore").decode())


# ---------------------------------------------------------------- renderings

def _relative(day: dt.date, now: dt.datetime) -> str:
    delta = relativedelta(now.date(), day)
    for amount, unit in ((delta.years, "year"), (delta.months, "month")):
        if amount > 0:
            return f"{amount} {unit}{'s' if amount > 1 else ''} ago"
    days = (now.date() - day).days
    if days >= 7:
        weeks = days // 7
        return f"{weeks} week{'s' if weeks > 1 else ''} ago"
    if days >= 1:
        return f"{days} day{'s' if days > 1 else ''} ago"
    return "today"


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def renderings(iso: str, now: str | None = None) -> list[str]:
    """The date of `iso` as blogs print it: the targets the date rule is scored against.

    The date is taken in the offset the feed gives (a post published late on the
    9th in California is the 9th on its page, not the 10th in UTC). The list is
    short on purpose: every page node is scored against every rendering.
    """
    value = parse_iso(iso) if isinstance(iso, str) else None
    if value is None:
        parsed = parse_date(iso) if isinstance(iso, str) else None
        value = parse_iso(parsed) if parsed else None
    if value is None:
        return []
    d = value.date() if isinstance(value, dt.datetime) else value
    month, mon = EN_MONTHS[d.month - 1], EN_MONTHS[d.month - 1][:3]
    out = [
        d.isoformat(),                                   # 2014-03-09
        f"{month} {d.day}, {d.year}",                    # March 9, 2014
        f"{d.day} {month} {d.year}",                     # 9 March 2014
        f"{EN_DAYS[d.weekday()]}, {month} {d.day}, {d.year}",  # Sunday, March 9, 2014
        f"{month} {_ordinal(d.day)}, {d.year}",          # March 9th, 2014
        f"{d.month:02d}/{d.day:02d}/{d.year}",           # 03/09/2014
        f"{d.day:02d}.{d.month:02d}.{d.year}",           # 09.03.2014
        f"{mon} {d.day}, {d.year}",                      # Mar 9, 2014
        f"{d.day} {mon} {d.year}",                       # 9 Mar 2014
        f"{d.day} {FR_MONTHS[d.month - 1]} {d.year}",    # 9 mars 2014
        f"{d.day} de {ES_MONTHS[d.month - 1]} de {d.year}",  # 9 de marzo de 2014
        f"{d.day}. {DE_MONTHS[d.month - 1]} {d.year}",   # 9. März 2014
        _relative(d, _now(now)),                         # 12 years ago
    ]
    return list(dict.fromkeys(out))


# ---------------------------------------------------------------- parsing

def _parse_relative(text: str, now: dt.datetime) -> str | None:
    for rx in _REL:
        m = rx.search(text)
        if m:
            n = m.group("n").lower()
            amount = int(n) if n.isdigit() else 1
            unit = _UNITS[m.group("u").lower()]
            if amount > 10000:
                return None
            try:
                when = now - relativedelta(**{unit: amount})
            except (ValueError, OverflowError):
                return None
            if unit in ("seconds", "minutes", "hours"):
                return when.replace(microsecond=0).isoformat()
            return _fmt(when.year, when.month, when.day)
    m = _DAY_WORD_RE.search(text)
    if m:
        when = now - dt.timedelta(days=_DAY_WORDS[m.group(1).lower()])
        time, tz = _time_after(text, m.end())
        return _fmt(when.year, when.month, when.day, time, tz)
    return None


def _iso_date(text: str, m: re.Match) -> str | None:
    """2014-03-09, with its own time and zone or a time written after it."""
    y, mo, d = int(m.group("y")), int(m.group("m")), int(m.group("d"))
    if m.group("h"):
        return _fmt(y, mo, d, (int(m.group("h")), int(m.group("mi")), int(m.group("s") or 0)), _tz(m.group("tz")))
    time, tz = _time_after(text, m.end())
    return _fmt(y, mo, d, time, tz)


def _rfc822_date(text: str) -> str | None:
    """An e-mail/RSS date ("Sun, 09 Mar 2014 10:00:00 +0100"), within the years a post has."""
    if not _RFC822.match(text):
        return None
    try:
        value = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if value is not None and MIN_YEAR <= value.year <= MAX_YEAR:
        return value.replace(microsecond=0).isoformat()  # "-0000": no zone known, none given
    return None


def _month_name_date(text: str) -> str | None:
    """The earliest "March 9, 2014" or "9 March 2014" in the text (a time after it kept)."""
    best = None
    for rx in (_MDY, _DMY):
        m = rx.search(text)
        if m and (best is None or m.start() < best.start()):
            best = m
            if not m.start():
                break  # nothing starts earlier ("March 9, 2014 | by ...")
    month = _month(best.group("mon")) if best else None
    if not month:
        return None
    time, tz = _time_after(text, best.end())
    return _fmt(int(best.group("y")), month, int(best.group("d")), time, tz)


def _ymd_date(text: str, m: re.Match) -> str | None:
    """2014/03/09, 2014.03.09, 2014年3月9日."""
    time, tz = _time_after(text, m.end())
    return _fmt(int(m.group("y")), int(m.group("m")), int(m.group("d")), time, tz)


def _day_first(a: int, b: int, sep: str, lang: str | None) -> bool:
    """Is a/b/2014 day first? A number above 12 says; else the separator and the language do:
    09.03.2014 is European everywhere, 03/09/2014 is US English, 09-03-2014 rarely is."""
    if a > 12:
        return True
    if b > 12:
        return False
    code = (lang or "").lower().replace("_", "-")
    if sep == ".":
        return True
    if code and (not code.startswith("en") or code in ("en-gb", "en-ie", "en-au", "en-nz", "en-in")):
        return True
    return sep == "-"


def _numeric_date(text: str, m: re.Match, lang: str | None) -> str | None:
    """03/09/2014, 09.03.2014, 9-3-2014 (12/14/07 in a short line): day and month in the order
    _day_first says."""
    g = m.groupdict()
    a, b, y = int(g["a"] or g.get("a2")), int(g["b"] or g.get("b2")), int(g["y"])
    if y < 100:  # two digits: the century that puts it in the past (07 -> 2007, 98 -> 1998)
        y += 2000 if 2000 + y <= dt.date.today().year else 1900
    day, month = (a, b) if _day_first(a, b, (g["sep"] or g.get("sep2") or "").strip(), lang) else (b, a)
    time, tz = _time_after(text, m.end())
    return _fmt(y, month, day, time, tz)


def _fast(text: str, lang: str | None) -> str | None:
    """The date the regular expressions read: the first format found decides (an ISO or
    numeric date that is no valid date is no date), except an RFC 822 or month-name date
    out of range, after which the numeric formats are still tried."""
    m = _ISO.search(text)
    if m:
        return _iso_date(text, m)
    out = _rfc822_date(text) or _month_name_date(text)
    if out:
        return out
    m = _YMD_NUM.search(text)
    if m:
        return _ymd_date(text, m)
    m = _NUM_Y.search(text)
    if m:
        return _numeric_date(text, m, lang)
    m = _NUM_YY.search(text) if len(text) <= SHORT_DATE_LINE else None
    return _numeric_date(text, m, lang) if m else None


@lru_cache(maxsize=8)
def _dateparser_languages(lang: str | None) -> tuple[str, ...]:
    base = ["en", "fr", "es", "de"]
    if lang:
        code = lang.split("-")[0].split("_")[0].lower()
        if code:
            return tuple(dict.fromkeys([code] + base))
    return tuple(base)


def _slow(text: str, lang: str | None, now: dt.datetime) -> str | None:
    """dateparser for what the regexes miss; only when the text has a day, month and year."""
    try:
        import dateparser
    except ImportError:  # pragma: no cover
        return None
    settings = {"RELATIVE_BASE": now.replace(tzinfo=None), "REQUIRE_PARTS": ["day", "month", "year"],
                "RETURN_AS_TIMEZONE_AWARE": False, "PREFER_DATES_FROM": "past"}
    try:
        value = dateparser.parse(text, languages=list(_dateparser_languages(lang)), settings=settings)
    except Exception:  # dateparser raises assorted errors on odd input
        return None
    if value is None:
        return None
    if _HAS_TIME.search(text):
        return _fmt(value.year, value.month, value.day, (value.hour, value.minute, value.second))
    return _fmt(value.year, value.month, value.day)


_NOISE = re.compile(r"\s+")
_PLAIN_ISO = re.compile(r"\d{4}-\d\d-\d\d(?:T\d\d:\d\d:\d\d[+-]\d\d:\d\d)?", re.ASCII)
_MAX_OFFSET = dt.timedelta(hours=14)
_ONLY_NUMBERS = re.compile(r"^[\d\s.,:/-]*$")
_NUMBERS = re.compile(r"\d+")


def _as_returned(text: str) -> str | None:
    """`text` itself if it is already what parse_date returns for it (a machine date such
    as <time datetime> or article:published_time, what most learned date rules read),
    else None: a fifth of the general way's cost, once per extracted post."""
    if not _PLAIN_ISO.fullmatch(text) or not MIN_YEAR <= int(text[:4]) <= MAX_YEAR:
        return None
    try:
        value = (dt.datetime if len(text) > 10 else dt.date).fromisoformat(text)
    except ValueError:
        return None
    if len(text) > 10 and abs(value.utcoffset()) > _MAX_OFFSET:
        return None  # read the general way: an offset no zone has is dropped
    return text if value.isoformat() == text else None


def _as_text(text) -> str | None:
    """Page text as str (bytes decoded as UTF-8), None for anything else."""
    if isinstance(text, bytes):
        return text.decode("utf-8", "replace")
    return text if isinstance(text, str) else None


def _dateparser_may_read(text: str) -> bool:
    """Worth dateparser's time: not numbers that are no date, not prose; a day and a year at
    least (two numbers, three digits)."""
    if _ONLY_NUMBERS.match(text) and not _NUM_Y.search(text):
        return False
    return len(text) <= 80 and sum(c.isdigit() for c in text) >= 3 and len(_NUMBERS.findall(text)) >= 2


def parse_date(text: str, lang: str | None = None, now: str | None = None, slow: bool = True) -> str | None:
    """ISO 8601 of a date printed on a page, or None; never raises.

    "2014-03-09T10:00:00+01:00" when the text has a time and a zone, "2014-03-09T10:00:00"
    (no offset: none is invented) when it has a time but no zone,
    "2014-03-09" when it has only a date. Surrounding words ("Posted on ... by")
    are ignored. A lone year or number is not a date.
    """
    try:
        text = _as_text(text)
        if text is None:
            return None
        if (same := _as_returned(text)) is not None:
            return same
        text = _NOISE.sub(" ", unicodedata.normalize("NFKC", text)).strip()
        if not text or len(text) > 400:
            return None
        if not any(c.isdigit() for c in text):
            return _parse_relative(text, _now(now))  # "a year ago", "yesterday", or nothing
        out = _fast(text, lang) or _parse_relative(text, _now(now))
        if out:
            return out
        return _slow(text, lang, _now(now)) if slow and _dateparser_may_read(text) else None
    except Exception:  # never raise on page text
        return None


# a day in folders (/2014/03/09/slug/, /2005/11/06.html) or in one name (/2014-03-09-slug/); a
# number opening the slug after the month's folder (/2018/11/30-faster-builds.html) is no day
_URL_DAY = re.compile(r"/((?:19|20)\d\d)(?:/(0[1-9]|1[0-2])/(0[1-9]|[12]\d|3[01])(?:/|\.|$)"
                      r"|-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])(?:/|\.|-|$))")


def url_day(url: str | None) -> str | None:
    """The day a post's URL carries (/2014/03/09/slug/), ISO "YYYY-MM-DD", or None."""
    m = _URL_DAY.search(url or "")
    if not m:
        return None
    return f"{m.group(1)}-{m.group(2) or m.group(4)}-{m.group(3) or m.group(5)}"


_URL_MONTH = re.compile(r"/((?:19|20)\d\d)/(0[1-9]|1[0-2])/(?!\d{1,2}(?:/|$))[^/?#]+")


def url_latest_day(url: str | None) -> str | None:
    """The latest day a post's URL allows it to be of: its day (/2014/03/09/slug/), else the last
    day of the month it names before the slug (/2011/09/slug.html, as Blogger and month
    permalinks write), else None. Enough to tell a post older than a date, not to date it."""
    day = url_day(url)
    if day:
        return day
    m = _URL_MONTH.search(url or "")
    if not m:
        return None
    import calendar

    y, mo = int(m.group(1)), int(m.group(2))
    return f"{y:04d}-{mo:02d}-{calendar.monthrange(y, mo)[1]:02d}"


def near_day(a: str | None, b: str | None, days: int = 1) -> bool:
    """Are two ISO dates within `days` of each other (a URL's day may be the next one: time zones)?"""
    import datetime as dt

    try:
        return abs((dt.date.fromisoformat(a[:10]) - dt.date.fromisoformat(b[:10])).days) <= days
    except (TypeError, ValueError):
        return False
