"""Dates both ways: feed date -> renderings a page may print, page text -> ISO 8601."""
from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import given, settings, strategies as st

from tasks.text.dates import parse_date, renderings

NOW = "2026-03-10T12:00:00+00:00"


def test_renderings_of_the_design_example():
    r = renderings("2014-03-09T10:00:00+00:00", now=NOW)
    for expected in ("2014-03-09", "March 9, 2014", "9 March 2014", "Sunday, March 9, 2014", "03/09/2014",
                     "09.03.2014", "Mar 9, 2014", "12 years ago", "9 mars 2014", "9 de marzo de 2014",
                     "9. März 2014"):
        assert expected in r
    assert len(r) >= 8 and len(set(r)) == len(r)


def test_renderings_keep_the_feeds_own_offset():
    # late on the 9th in California is the 9th on the page, although the 10th in UTC
    assert renderings("2014-03-09T23:30:00-08:00", now=NOW)[0] == "2014-03-09"
    assert renderings("Sun, 09 Mar 2014 23:30:00 -0800", now=NOW)[0] == "2014-03-09"
    assert renderings("not a date") == []


@settings(max_examples=200, deadline=None)
@given(st.dates(min_value=dt.date(1995, 1, 1), max_value=dt.date(2025, 12, 31)))
def test_every_rendering_parses_back_to_its_day(day):
    iso = f"{day.isoformat()}T10:00:00+00:00"
    for text in renderings(iso, now=NOW):
        got = parse_date(text, now=NOW)
        assert got is not None, text
        back = dt.date.fromisoformat(got[:10])
        if "ago" in text or text == "today":  # relative: only as precise as its unit
            assert abs((back - day).days) <= 31 * (12 if "year" in text else 1) + 7, (text, got)
        else:
            assert back == day, (text, got)


@pytest.mark.parametrize("text, expected", [
    ("2014-03-09", "2014-03-09"),
    ("2014-03-09T10:00:00Z", "2014-03-09T10:00:00+00:00"),
    ("2014-03-09T10:00:00+01:00", "2014-03-09T10:00:00+01:00"),  # <time datetime>, article:published_time
    ("2014-03-09T10:00:00.000+0100", "2014-03-09T10:00:00+01:00"),
    ("Sun, 09 Mar 2014 10:00:00 GMT", "2014-03-09T10:00:00+00:00"),  # RFC 822 (RSS pubDate)
    ("Posted on March 9, 2014 at 10:00 pm by Ann", "2014-03-09T22:00:00"),
    ("March 9th, 2014", "2014-03-09"),
    ("Sunday, 9th of March 2014", "2014-03-09"),
    ("Mar 9, 2014", "2014-03-09"),
    ("9 mars 2014", "2014-03-09"),
    ("le 1er mars 2014 à 10h30", "2014-03-01T10:30:00"),
    ("26 décembre 2011 à 13 h 47", "2011-12-26T13:47:00"),  # the French typographic time
    ("dimanche 9 février 2014", "2014-02-09"),
    ("9 de marzo de 2014", "2014-03-09"),
    ("9 diciembre 2014", "2014-12-09"),
    ("9. März 2014, 10:00 Uhr", "2014-03-09T10:00:00"),
    ("9. Maerz 2014", "2014-03-09"),
    ("9 Dezember 2014", "2014-12-09"),
    ("09.03.2014", "2014-03-09"),
    ("03/09/2014", "2014-03-09"),  # US order by default
    ("25/12/2014", "2014-12-25"),  # a day above 12 decides
    ("23/10-2019 - 08:31", "2019-10-23T08:31:00"),  # separators that differ
    ("2014/03/09", "2014-03-09"),
    ("2013.08.28 |", "2013-08-28"),
    ("2014年3月9日", "2014-03-09"),
])
def test_parse_date_formats(text, expected):
    assert parse_date(text, now=NOW) == expected


def test_day_first_for_non_us_languages():
    assert parse_date("03/09/2014", lang="fr") == "2014-09-03"
    assert parse_date("03/09/2014", lang="en-GB") == "2014-09-03"
    assert parse_date("03/09/2014", lang="en-US") == "2014-03-09"


@pytest.mark.parametrize("text, expected", [
    ("3 days ago", "2026-03-07"),
    ("a year ago", "2025-03-10"),
    ("2 weeks ago", "2026-02-24"),
    ("il y a 2 jours", "2026-03-08"),
    ("hace 3 meses", "2025-12-10"),
    ("vor einem Monat", "2026-02-10"),
    ("yesterday", "2026-03-09"),
    ("gestern um 10:00", "2026-03-09T10:00:00"),
    ("5 hours ago", "2026-03-10T07:00:00+00:00"),
])
def test_relative_dates_in_four_languages(text, expected):
    assert parse_date(text, now=NOW) == expected


@pytest.mark.parametrize("text", ["", "   ", "2014", "42", "Comments (12)", "version 1.2.3", "Page 3 of 10",
                                  "hello world", "99/99/2014", "2014-13-45", "1800-01-01", None, 12, b"\xff\xfe"])
def test_not_dates(text):
    assert parse_date(text, now=NOW) is None


def test_long_text_is_prose_not_a_date():
    assert parse_date("word " * 200 + "March 9, 2014") is None


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120))
def test_parse_date_never_raises_and_returns_iso(text):
    got = parse_date(text, now=NOW)
    if got is not None:
        dt.datetime.fromisoformat(got) if "T" in got else dt.date.fromisoformat(got)


_ISO_PIECES = st.tuples(st.integers(1975, 2105), st.integers(0, 13), st.integers(0, 32),
                        st.integers(0, 25), st.integers(0, 61), st.integers(0, 61),
                        st.sampled_from("+-"), st.integers(0, 16), st.sampled_from([0, 30, 45, 59]))


@settings(max_examples=400, deadline=None)
@given(_ISO_PIECES, st.booleans())
def test_machine_dates_read_as_the_general_way_reads_them(pieces, with_time):
    """Texts already in parse_date's own form are returned without the general reading
    (regular expressions, time zone table); with a space in front they take the general
    way, and both must agree, invalid days, hours, years and offsets included."""
    y, mo, d, h, mi, s, sign, oh, om = pieces
    text = f"{y:04d}-{mo:02d}-{d:02d}" + (f"T{h:02d}:{mi:02d}:{s:02d}{sign}{oh:02d}:{om:02d}" if with_time else "")
    assert parse_date(text) == parse_date(" " + text)


def test_no_zone_is_invented():
    """A time shown without a zone is written without an offset; a shown zone is kept."""
    assert parse_date("March 9, 2014 10:00") == "2014-03-09T10:00:00"
    assert parse_date("2014-03-09 10:00") == "2014-03-09T10:00:00"
    assert parse_date("2014-03-09T10:00:00+05:30") == "2014-03-09T10:00:00+05:30"
    assert parse_date("March 9, 2014 10:00 PST") == "2014-03-09T10:00:00-08:00"
    assert parse_date("Sun, 09 Mar 2014 10:00:00 -0000") == "2014-03-09T10:00:00"
    assert parse_date("Sun, 09 Mar 2014 10:00:00 GMT") == "2014-03-09T10:00:00+00:00"


@pytest.mark.parametrize("text,iso", [
    ("19 lutego 2013 at 19:39", "2013-02-19T19:39:00"),  # Polish, declined, an English "at"
    ("5 Ekim 2014", "2014-10-05"),  # Turkish
    ("14 febbraio 2015", "2015-02-14"),  # Italian
    ("3 de outubro de 2014", "2014-10-03"),  # Portuguese
])
def test_month_names_of_other_languages_parse_without_the_page_language(text, iso):
    assert parse_date(text) == iso


def test_a_month_name_two_languages_give_different_months_is_not_guessed():
    """"listopad" is November in Polish and Czech, October in Croatian: no fast-path guess."""
    from tasks.text.month_words import MONTH_WORDS
    assert "listopad" not in MONTH_WORDS and MONTH_WORDS["lutego"] == 2


def test_the_latest_day_a_posts_url_allows():
    from tasks.text.dates import url_latest_day

    assert url_latest_day("http://b.test/2014/03/09/slug/") == "2014-03-09"
    assert url_latest_day("http://b.test/2011/09/le-temps.html") == "2011-09-30"  # a month permalink
    assert url_latest_day("http://b.test/2012/02/a-post/") == "2012-02-29"
    assert url_latest_day("http://b.test/2011/12/") is None  # a month's archive, no post
    assert url_latest_day("http://b.test/2011/12/3/") is None
    assert url_latest_day("http://b.test/p/contact.html") is None
    assert url_latest_day("http://b.test/2011/13/a.html") is None


def test_a_two_digit_year_is_read_in_a_short_date_line_only():
    """Held-out eikke (b2evolution): each comment's "Permalink 12/14/07 @ 02:50" went unread, so
    the line read as a name. A two-digit year takes the century that puts it in the past; it is
    read in a short line only, with dots only as two digits each (never "version 1.2.10")."""
    assert parse_date("Permalink 12/14/07 @ 02:50", slow=False) == "2007-12-14T02:50:00"
    assert parse_date("14.12.07", slow=False) == "2007-12-14"
    assert parse_date("03/09/98", lang="en", slow=False) == "1998-03-09"
    assert parse_date("03/09/98", lang="fr", slow=False) == "1998-09-03"
    for text in ("Version 1.2.10", "v1.2.10", "1/2/3", "01.02.03.04",
                 "10/10/10 was a fine day for a long walk by the sea"):
        assert parse_date(text, slow=False) is None, text


def test_a_numeric_date_with_a_space_after_each_dot():
    """"07. 03. 2010": Czech, Slovak and German print a day and month this way (a new blog's
    every post date; its date rule fell to a comment's date line)."""
    from tasks.text.dates import parse_date

    assert parse_date("07. 03. 2010") == "2010-03-07"
    assert parse_date("7. 3. 2010") == "2010-03-07"
    assert parse_date("Vloženo 1. 2. 2010 v 10:30")[:10] == "2010-02-01"
    assert parse_date("07.03.2010") == "2010-03-07"
    assert parse_date("7 . 3 . 2010") is None  # a space before the dot is no date's


@pytest.mark.parametrize("url,day", [
    ("https://b.test/2014/03/09/slug/", "2014-03-09"),
    ("https://b.test/posts/2021-01-05-stack-clash/", "2021-01-05"),
    ("https://b.test/2005/11/06.html", "2005-11-06"),
    ("https://b.test/2014/03/09", "2014-03-09"),
    # a number opening the slug after the month's folder is the slug's (Blogger: "30% faster builds")
    ("https://b.test/2018/11/30-faster-windows-builds.html", None),
    ("https://b.test/2014/03-09/x", None),
])
def test_the_day_a_url_carries(url, day):
    from tasks.text.dates import url_day

    assert url_day(url) == day
