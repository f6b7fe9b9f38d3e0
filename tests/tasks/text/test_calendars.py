"""Jalali days as Persian blogs print them (tasks/text/calendars.py)."""
from __future__ import annotations

import pytest

from tasks.text.calendars import jalali_day


@pytest.mark.parametrize("text, day", [
    ("۱۶ بهمن ۱۳۹۶", "2018-02-05"),
    ("۰۵ دی ۱۳۹۶ افزودن متادیتا", "2017-12-26"),
    ("1 فروردین 1400", "2021-03-21"),
    ("۱۳۹۹/۱۲/۳۰", "2021-03-20"),  # the last day of a leap year
    ("posted 1402-07-01", "2023-09-23"),
    ("16 February 2018", None),  # Gregorian: not for this reader
    ("2018/02/05", None),
    ("۳۱ اسفند ۱۴۰۱", None),  # no such day
    ("", None),
])
def test_jalali_day(text, day):
    assert jalali_day(text) == day
