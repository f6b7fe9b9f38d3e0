"""tasks.extract.comment_clock: the clock a page prints comment times in, from its feed."""
from __future__ import annotations

from tasks.extract.comment_clock import MAX_ZONES, holds, learn, narrow, read_in, same_time

FEED = ["2018-12-03T17:22:10+00:00", "2018-12-04T02:05:00+00:00", "2019-01-06T11:00:59+00:00"]
LABELLED_UTC = ["2018-12-03T14:22:00+00:00", "2018-12-03T23:05:00+00:00", "2019-01-06T08:00:00+00:00"]


def test_local_times_labelled_utc_are_read_in_the_zones_that_print_them():
    clock = learn(zip(LABELLED_UTC, FEED))
    assert clock and "America/Argentina/Buenos_Aires" in clock["zones"] and "UTC-03:00" in clock["zones"]
    assert "America/New_York" not in clock["zones"] and "Europe/Paris" not in clock["zones"]
    assert read_in(LABELLED_UTC[1], clock) == "2018-12-03T23:05:00-03:00"
    assert same_time(read_in(LABELLED_UTC[1], clock), FEED[1])


def test_times_with_no_zone_take_the_feeds_offset():
    clock = learn(zip(["2018-12-03T22:52", "2018-12-04T07:35", "2019-01-06T16:30"], FEED))  # +05:30
    assert clock and "Asia/Kolkata" in clock["zones"] and "UTC+05:30" in clock["zones"]
    assert read_in("2020-06-01T10:00", clock) == "2020-06-01T10:00:00+05:30"


def test_one_seasons_sample_reads_only_where_every_zone_it_leaves_agrees():
    """Buenos Aires, Sao Paulo and Santiago all print -3 h in a southern summer; in July they do not."""
    clock = learn(zip(LABELLED_UTC, FEED))
    assert holds("2019-02-10T10:00:00", clock) and not holds("2019-07-10T10:00:00", clock)
    assert read_in("2019-07-10T10:00:00+00:00", clock) == "2019-07-10T10:00:00+00:00"  # as printed
    assert holds("2019-07-10", clock) and holds("2019-07-10T10:00:00", None)  # nothing to read


def test_a_sample_spanning_summer_time_learns_the_zones_whose_rules_explain_both_offsets():
    page = ["2018-09-03T10:00:00", "2018-09-10T11:30:00", "2018-12-03T09:00:00", "2018-12-05T09:00:00"]
    feed = ["2018-09-03T14:00:00+00:00", "2018-09-10T15:30:00+00:00",  # -4 h (summer time)
            "2018-12-03T14:00:00+00:00", "2018-12-05T14:00:00+00:00"]  # -5 h
    clock = learn(zip(page, feed))
    assert clock and "America/New_York" in clock["zones"] and "America/Toronto" in clock["zones"]
    assert not [z for z in clock["zones"] if z.startswith(("UTC", "Etc/"))]  # no fixed offset explains both
    assert read_in("2019-07-01T10:00", clock) == "2019-07-01T10:00:00-04:00"
    assert read_in("2019-01-15T10:00", clock) == "2019-01-15T10:00:00-05:00"
    # the hour the clocks skip, and the hour they repeat, are not read
    assert not holds("2019-03-10T02:30", clock) and not holds("2019-11-03T01:30", clock)
    assert holds("2019-11-03T03:30", clock)


def test_no_clock_where_no_zone_explains_the_pairs_or_evidence_is_short():
    assert learn(zip(["2018-12-03T09:22:10-08:00", "2018-12-03T18:05:00-08:00", "2019-01-06T03:00:59-08:00"],
                     FEED)) is None  # the page's own zone is right: nothing to learn
    other = ["2018-12-03T14:22:00", "2018-12-03T23:05:00", "2019-01-06T07:00:00"]  # -3 h, -3 h, -4 h in one winter
    assert learn(zip(other, FEED)) is None
    assert learn(zip(["2018-12-03T14:22:00"] * 2, FEED[:2])) is None  # two comments: not enough
    assert learn(zip(["2018-12-03T14:31:00", "2018-12-03T23:14", "2019-01-06T08:09"], FEED)) is None  # no zone's
    assert learn(zip(["2018-12-03", "2018-12-04", "2019-01-06"], FEED)) is None  # days alone
    assert learn(zip(["2018-12-03T14:22:00"] * 3, ["2018-12-13T14:22:00+00:00"] * 3)) is None  # ten days


def test_reading_in_a_clock_leaves_days_and_bad_clocks_alone():
    clock = learn(zip(LABELLED_UTC, FEED))
    assert read_in("2018-12-03", clock) == "2018-12-03"
    assert read_in(None, clock) is None
    for bad in ({"zones": ["Mars/Olympus"]}, {"zones": []}, {"zones": "Europe/Paris"}, {"zones": [3]},
                {"zones": ["UTC+99:00"]}, {"zones": ["UTC"] * (MAX_ZONES + 1)}, {"minutes": 60}, 60):
        assert read_in("2018-12-03T10:00:00", bad) == "2018-12-03T10:00:00"
        assert not holds("2018-12-03T10:00:00", bad)


def test_same_time_is_the_instant_within_a_minute():
    assert same_time("2018-05-03T14:22:00-03:00", "2018-05-03T17:22:37+00:00")
    assert not same_time("2018-05-03T14:22:00-03:00", "2018-05-03T17:23:30+00:00")
    assert not same_time("2018-05-03T14:22:00", "2018-05-03T14:22:00+00:00")  # the zone the page lacks
    assert same_time("2018-05-03", "2018-05-03") and not same_time(None, "2018-05-03")


def test_a_post_of_another_season_narrows_the_clock_to_the_zones_that_explain_it_too():
    """Sampled in a northern summer at -4 h: zones with and without summer time. A winter post
    that read its feed shows -5 h: only the zones with summer time are left, and the next
    winter post's times are read."""
    summer = ["2019-07-01T10:00", "2019-07-02T11:30", "2019-08-03T09:00"]
    clock = learn(zip(summer, ["2019-07-01T14:00:00+00:00", "2019-07-02T15:30:00+00:00", "2019-08-03T13:00:00+00:00"]))
    assert "America/New_York" in clock["zones"] and "America/Santo_Domingo" in clock["zones"]
    assert not holds("2019-12-10T10:00", clock)
    winter = narrow(clock, [("2019-12-10T10:00", "2019-12-10T15:00:00+00:00")])
    assert "America/New_York" in winter["zones"] and "America/Santo_Domingo" not in winter["zones"]
    assert read_in("2020-01-15T08:00", winter) == "2020-01-15T08:00:00-05:00"
    assert narrow(winter, [("2019-12-11T10:00", "2019-12-11T15:00:00+00:00")]) is None  # nothing new
    assert narrow(winter, [("2019-12-11T10:00", "2019-12-11T19:00:00+00:00")]) is None  # no zone explains it
    assert narrow(winter, [("2019-12-11", "2019-12-11T19:00:00+00:00")]) is None  # a day alone
    assert narrow({"zones": "x"}, [("2019-12-11T10:00", "2019-12-11T15:00:00+00:00")]) is None
