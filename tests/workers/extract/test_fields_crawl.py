"""Whole crawls of the bylines farm family: values inside bylines, titles with counters or
subtitles, authors only in JSON-LD or only at feed level, date-only bylines, in four
languages; each record says which source filled each field."""
from __future__ import annotations

import datetime as dt

import pytest

from tests.conftest import score

CASES = [("span", "fr", 1), ("span", "de", 2), ("span", "es", 3), ("title_extra", "en", 4),
         ("title_extra", "es", 5), ("jsonld", "de", 6), ("feed_author", "fr", 7), ("date_only", "en", 8),
         ("date_only", "de", 9)]
EXPECTED = {"span": {"authors": "span"}, "title_extra": {"title": "span"}, "jsonld": {"authors": "jsonld"},
            "feed_author": {"authors": "feed_blog"}, "date_only": {"published": "rule"}}


@pytest.mark.parametrize("case,lang,seed", CASES)
def test_fields_as_a_reader_sees_them(crawl, farm_blog, case, lang, seed):
    site = farm_blog("bylines", seed=seed, n_posts=25, case=case, lang=lang,
                     n_authors=3 if case == "span" else None)
    info, records = crawl(site.url, timeout=240)
    assert info["state"] == "done", info
    s = score(site.truth, records)
    assert s["found"] == 100 and s["title_exact"] == 100 and s["author"] == 100 and s["date"] == 100, s
    for field, source in EXPECTED[case].items():
        assert all(r["sources"].get(field) == source for r in records), (field, [r["sources"] for r in records])
    truth = {t["title"]: t for t in site.truth}
    if case == "span":
        assert any(len(t["authors"]) == 2 for t in site.truth)
    for r in records:
        t = truth[r["title"]]
        assert r["authors"] == t["authors"]  # every co-author, no "par"/"von", no site name
        # the page's date: its own offset, a date only, or a local time without an invented zone
        got, want = r["published"], t["published"]
        if len(got) == 10:
            assert got == want[:10]
        elif got[19:] == "":  # no offset: the local time the page shows
            assert got == want[:19]
        else:
            assert dt.datetime.fromisoformat(got) == dt.datetime.fromisoformat(want)


@pytest.mark.parametrize("seed", [3, 11])
def test_posts_whose_pages_print_no_day_take_the_day_their_listing_prints(crawl, farm_blog, seed):
    """A theme printing each post's day on its listings only (the home page's cards and its
    numbered pages), none on the post's page, and no feed: the page-level reader guessed a day
    (a new blog's every post dated the day its copy was made) or none. The day the listing
    prints beside each post dates its record, which says so."""
    site = farm_blog("nofeed", seed=seed, n_posts=30, base="static", undated_posts=True)
    info, records = crawl(site.url, timeout=240)
    assert info["state"] == "done", info
    s = score(site.truth, records)
    assert s["found"] == 100 and s["date"] == 100, s
    assert all(r["sources"].get("published") == "listing" for r in records), [r["sources"] for r in records]
