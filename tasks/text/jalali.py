"""Dates of the Solar Hijri calendar, as Persian and Dari blogs print them (issue 35).

A Persian blog prints "۱۶ بهمن ۱۳۹۶" or "۱۳۹۶/۱۱/۱۶" beside its posts, in the Solar Hijri
(Jalali) calendar: read as Gregorian they are no date (year 1396), so an update crawl could
not tell a new post on its listings, nor a page the day of a comment. The conversion is
jdatetime's.
"""
from __future__ import annotations

import re

__all__ = ["jalali_date"]

# Iranian month names, then the Dari (Afghan) ones; Arabic-keyboard letter forms and Persian and
# Arabic-Indic digits folded first
MONTHS = {w: i + 1 for i, w in enumerate(["فروردین", "اردیبهشت", "خرداد", "تیر", "مرداد", "شهریور", "مهر",
                                         "آبان", "آذر", "دی", "بهمن", "اسفند"])}
MONTHS.update({w: i + 1 for i, w in enumerate(["حمل", "ثور", "جوزا", "سرطان", "اسد", "سنبله", "میزان", "عقرب",
                                              "قوس", "جدی", "دلو", "حوت"])})
MONTHS["امرداد"] = 5
_FOLD = str.maketrans({"ي": "ی", "ك": "ک", "ى": "ی", "ۀ": "ه", "\u200c": " ",
                       **{chr(0x6F0 + i): str(i) for i in range(10)}, **{chr(0x660 + i): str(i) for i in range(10)}})
_WORD = "|".join(sorted(MONTHS, key=len, reverse=True))
_DMY = re.compile(rf"(?<!\d)(?P<d>\d{{1,2}})\s*(?P<mon>{_WORD})(?![\w])[\s,،]*(?P<y>1[34]\d\d)(?!\d)")
_YMD = re.compile(r"(?<!\d)(?P<y>1[34]\d\d)[/.-](?P<m>\d{1,2})[/.-](?P<d>\d{1,2})(?!\d)")


def jalali_date(text: str) -> tuple[int, int, int, int] | None:
    """(Gregorian year, month, day, where the date ends in `text`) of the first Solar Hijri date
    in `text` ("16 Bahman 1396" in Persian words, or 1396/11/16), or None."""
    folded = text.translate(_FOLD)
    if len(folded) != len(text):  # (the fold keeps offsets: one character for one)
        return None
    m = _DMY.search(folded)
    if m:
        y, mo, d = int(m.group("y")), MONTHS[m.group("mon")], int(m.group("d"))
    else:
        m = _YMD.search(folded)
        if not m:
            return None
        y, mo, d = int(m.group("y")), int(m.group("m")), int(m.group("d"))
    try:
        import jdatetime

        g = jdatetime.date(y, mo, d).togregorian()
    except (ImportError, ValueError):
        return None
    return g.year, g.month, g.day, m.end()
