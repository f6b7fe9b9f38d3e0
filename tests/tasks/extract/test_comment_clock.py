"""tasks.extract.comment_clock: the clock a page prints comment times in, from its feed."""
from __future__ import annotations

from tasks.extract.comment_clock import holds, learn, read_in, same_time

FEED = ["2018-12-03T17:22:10+00:00", "2018-12-04T02:05:00+00:00", "2019-01-06T11:00:59+00:00"]
WINTER = {"minutes": -180, "season": "winter"}


def test_local_times_labelled_utc_are_one_offset_off_the_feed():
    page = ["2018-12-03T14:22:00+00:00", "2018-12-03T23:05:00+00:00", "2019-01-06T08:00:00+00:00"]
    assert learn(zip(page, FEED)) == WINTER
    assert read_in(page[1], WINTER) == "2018-12-03T23:05:00-03:00"
    assert same_time(read_in(page[1], WINTER), FEED[1])


def test_times_with_no_zone_take_the_feeds_offset():
    page = ["2018-12-03T19:52", "2018-12-04T04:35", "2019-01-06T13:30"]
    assert learn(zip(page, FEED)) == {"minutes": 150, "season": "winter"}


def test_a_clock_reads_the_season_it_was_learned_in_or_all_where_the_sample_spans_both():
    assert holds("2019-02-10T10:00:00", WINTER) and not holds("2019-07-10T10:00:00", WINTER)
    assert read_in("2019-07-10T10:00:00+00:00", WINTER) == "2019-07-10T10:00:00+00:00"  # as printed
    assert holds("2019-07-10", WINTER) and holds("2019-07-10T10:00:00", None)  # nothing to read
    both = ["2018-12-03T14:22:00", "2019-06-01T09:00:00", "2019-07-01T09:00:00"]
    feed = ["2018-12-03T17:22:00+00:00", "2019-06-01T12:00:00+00:00", "2019-07-01T12:00:00+00:00"]
    assert learn(zip(both, feed)) == {"minutes": -180, "season": "all"}
    march = ["2018-03-03T14:22:00", "2018-03-04T09:00:00", "2018-03-05T09:00:00"]
    assert learn(zip(march, [t.replace("T14", "T17").replace("T09", "T12") + "+00:00" for t in march])) is None


def test_no_clock_where_the_offsets_differ_or_evidence_is_short():
    assert learn(zip(["2018-12-03T09:22:10-08:00", "2018-12-03T18:05:00-08:00", "2019-01-06T03:00:59-08:00"],
                     FEED)) is None  # the page's own zone is right: nothing to learn
    other = ["2018-12-03T14:22:00", "2018-12-03T23:05:00", "2019-01-06T07:00:00"]  # -3 h, -3 h, -4 h
    assert learn(zip(other, FEED)) is None
    assert learn(zip(["2018-12-03T14:22:00"] * 2, FEED[:2])) is None  # two comments: not enough
    assert learn(zip(["2018-12-03T14:31:00", "2018-12-03T23:14", "2019-01-06T08:09"], FEED)) is None  # no quarter
    assert learn(zip(["2018-12-03", "2018-12-04", "2019-01-06"], FEED)) is None  # days alone
    assert learn(zip(["2018-12-03T14:22:00"] * 3, ["2018-12-13T14:22:00+00:00"] * 3)) is None  # ten days


def test_reading_in_a_clock_leaves_days_and_bad_clocks_alone():
    assert read_in("2018-12-03", WINTER) == "2018-12-03"
    assert read_in(None, WINTER) is None
    for bad in ({"minutes": "60", "season": "winter"}, {"minutes": 10 ** 6, "season": "all"},
                {"minutes": True, "season": "all"}, {"minutes": 60, "season": "spring"}, 60):
        assert read_in("2018-12-03T10:00:00", bad) == "2018-12-03T10:00:00"


def test_same_time_is_the_instant_within_a_minute():
    assert same_time("2018-05-03T14:22:00-03:00", "2018-05-03T17:22:37+00:00")
    assert not same_time("2018-05-03T14:22:00-03:00", "2018-05-03T17:23:30+00:00")
    assert not same_time("2018-05-03T14:22:00", "2018-05-03T14:22:00+00:00")  # the zone the page lacks
    assert same_time("2018-05-03", "2018-05-03") and not same_time(None, "2018-05-03")
