"""Days printed in the Solar Hijri (Jalali) calendar, as Persian blogs print them
("۱۶ بهمن ۱۳۹۶", "1396/11/16"): their ISO (Gregorian) day, through jdatetime.

Only where the ordinary date reading finds nothing (tasks.text.dates.parse_date reads no
Jalali month), so a Gregorian date is never read as one: a Jalali year is 1300-1499.
"""
from __future__ import annotations

import re

import jdatetime

__all__ = ["jalali_day", "MONTHS"]

_DIGITS = str.maketrans("۰۱۲۳۴۵۶۷۸۹٠١٢٣٤٥٦٧٨٩", "01234567890123456789")
MONTHS = {"فروردین": 1, "اردیبهشت": 2, "خرداد": 3, "تیر": 4, "مرداد": 5, "امرداد": 5, "شهریور": 6,
          "مهر": 7, "آبان": 8, "آذر": 9, "دی": 10, "بهمن": 11, "اسفند": 12}
_NAMED = re.compile(r"(?<!\d)(\d{1,2})\s+(" + "|".join(sorted(MONTHS, key=len, reverse=True))
                    + r")(?:\s*ماه)?\s*,?\s+(1[34]\d\d)(?!\d)")
_NUMERIC = re.compile(r"(?<!\d)(1[34]\d\d)[/.-](\d{1,2})[/.-](\d{1,2})(?!\d)")


def jalali_day(text: str | None) -> str | None:
    """The ISO day of the first Jalali date in `text` ("day month-name year" or "year/month/day",
    Persian or Latin digits), or None."""
    if not text:
        return None
    t = text.translate(_DIGITS)
    m = _NAMED.search(t)
    if m:
        y, mo, d = int(m.group(3)), MONTHS[m.group(2)], int(m.group(1))
    else:
        m = _NUMERIC.search(t)
        if not m:
            return None
        y, mo, d = int(m.group(1)), int(m.group(2)), int(m.group(3))
    try:
        return jdatetime.date(y, mo, d).togregorian().isoformat()
    except (ValueError, OverflowError):
        return None
