"""tasks.extract.comment_clock: the clock a page prints comment times in, from its feed."""
from __future__ import annotations

from tasks.extract.comment_clock import offset, read_in, same_time

FEED = ["2018-05-03T17:22:10+00:00", "2018-05-04T02:05:00+00:00", "2018-05-06T11:00:59+00:00"]


def test_local_times_labelled_utc_are_one_offset_off_the_feed():
    page = ["2018-05-03T14:22:00+00:00", "2018-05-03T23:05:00+00:00", "2018-05-06T08:00:00+00:00"]
    assert offset(zip(page, FEED)) == -180
    assert read_in(page[1], -180) == "2018-05-03T23:05:00-03:00"
    assert same_time(read_in(page[1], -180), FEED[1])


def test_times_with_no_zone_take_the_feeds_offset():
    page = ["2018-05-03T19:52", "2018-05-04T04:35", "2018-05-06T13:30"]
    assert offset(zip(page, FEED)) == 150
    assert read_in("2018-05-03T19:52", 150) == "2018-05-03T19:52:00+02:30"


def test_no_clock_where_the_offsets_differ_or_evidence_is_short():
    summer = ["2018-05-03T14:22:00", "2018-05-03T23:05:00", "2018-05-06T07:00:00"]  # -3 h, -3 h, -4 h
    assert offset(zip(summer, FEED)) is None
    assert offset(zip(["2018-05-03T14:22:00"] * 2, FEED[:2])) is None  # two comments: not enough
    assert offset(zip(["2018-05-03T14:31:00", "2018-05-03T23:14", "2018-05-06T08:09"], FEED)) is None  # not a quarter
    assert offset(zip(["2018-05-03", "2018-05-04", "2018-05-06"], FEED)) is None  # days alone
    assert offset(zip(["2018-05-03T14:22:00"] * 3, ["2018-05-13T14:22:00+00:00"] * 3)) is None  # ten days


def test_reading_in_a_clock_leaves_days_and_bad_offsets_alone():
    assert read_in("2018-05-03", 60) == "2018-05-03"
    assert read_in(None, 60) is None
    assert read_in("2018-05-03T10:00:00", "60") == "2018-05-03T10:00:00"
    assert read_in("2018-05-03T10:00:00", 10 ** 6) == "2018-05-03T10:00:00"
    assert read_in("2018-05-03T10:00:00", True) == "2018-05-03T10:00:00"


def test_same_time_is_the_instant_within_a_minute():
    assert same_time("2018-05-03T14:22:00-03:00", "2018-05-03T17:22:37+00:00")
    assert not same_time("2018-05-03T14:22:00-03:00", "2018-05-03T17:23:30+00:00")
    assert not same_time("2018-05-03T14:22:00", "2018-05-03T14:22:00+00:00")  # the zone the page lacks
    assert same_time("2018-05-03", "2018-05-03") and not same_time(None, "2018-05-03")
