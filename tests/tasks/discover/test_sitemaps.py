"""Sitemaps read from bytes: urlsets, indexes, gzip, text, news and image sitemaps, hostile XML."""
from __future__ import annotations

import gzip

import pytest

from tasks.discover.sitemaps import (SitemapError, candidates, looks_like_sitemap, older_than, parse_sitemap,
                                     robots_sitemaps)

NS = 'xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"'


def urlset(rows: str) -> bytes:
    return f'<?xml version="1.0" encoding="UTF-8"?>\n<urlset {NS}>{rows}</urlset>'.encode()


def test_urlset_with_lastmod():
    data = urlset("<url><loc>https://b.test/a/</loc><lastmod>2014-03-09T10:00:00+01:00</lastmod></url>"
                  "<url><loc> https://b.test/b/ </loc></url><url><lastmod>2014</lastmod></url>")
    got = parse_sitemap(data, "https://b.test/sitemap.xml")
    assert got["kind"] == "urlset" and got["sitemaps"] == []
    assert got["urls"] == [{"url": "https://b.test/a/", "lastmod": "2014-03-09T10:00:00+01:00"},
                           {"url": "https://b.test/b/", "lastmod": None}]


def test_index_gzip_and_relative_locations():
    index = (f'<sitemapindex {NS}><sitemap><loc>/post-sitemap.xml.gz</loc><lastmod>2020-01-02</lastmod>'
             f'</sitemap><sitemap><loc>https://b.test/page-sitemap.xml</loc></sitemap></sitemapindex>').encode()
    got = parse_sitemap(gzip.compress(index), "https://b.test/sitemap_index.xml")
    assert got["kind"] == "index" and got["urls"] == []
    assert [s["url"] for s in got["sitemaps"]] == ["https://b.test/post-sitemap.xml.gz", "https://b.test/page-sitemap.xml"]
    assert got["sitemaps"][0]["lastmod"] == "2020-01-02"


def test_news_and_image_sitemaps():
    data = urlset('<url><loc>https://b.test/n/</loc><news:news xmlns:news="http://www.google.com/schemas/sitemap-news/0.9">'
                  '<news:publication_date>2021-05-06T07:08:09Z</news:publication_date></news:news>'
                  '<image:image xmlns:image="http://www.google.com/schemas/sitemap-image/1.1">'
                  '<image:loc>https://cdn.test/i.png</image:loc></image:image></url>')
    got = parse_sitemap(data, "https://b.test/news.xml")
    assert [u["url"] for u in got["urls"]] == ["https://b.test/n/"]  # the image is media, not a page
    assert got["urls"][0]["lastmod"].startswith("2021-05-06")


def test_text_sitemap():
    got = parse_sitemap(b"https://b.test/a/\nhttps://b.test/b/\n", "https://b.test/sitemap.txt")
    assert got["kind"] == "text" and [u["url"] for u in got["urls"]] == ["https://b.test/a/", "https://b.test/b/"]


@pytest.mark.parametrize("data", [b"<!DOCTYPE html><html><body>Not found</body></html>", b"", b"\x1f\x8bbroken",
                                  b"<rss><channel/></rss>"])
def test_non_sitemaps_raise(data):
    with pytest.raises(SitemapError):
        parse_sitemap(data, "https://b.test/sitemap.xml")


def test_entities_are_not_expanded_and_no_file_is_read():
    bomb = (b'<?xml version="1.0"?><!DOCTYPE urlset [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">'
            b'<!ENTITY x SYSTEM "file:///etc/passwd">]>'
            b'<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"><url><loc>https://b.test/&b;&x;</loc></url>'
            b'<url><loc>https://b.test/ok/</loc></url></urlset>')
    got = parse_sitemap(bomb, "https://b.test/sitemap.xml")
    locs = [u["url"] for u in got["urls"]]
    assert "https://b.test/ok/" in locs
    assert not any("aaaa" in u or "root:" in u for u in locs)


def test_gzip_bomb_is_capped():
    data = gzip.compress(urlset("<url><loc>https://b.test/a/</loc></url>" * 20000))
    with pytest.raises(SitemapError):
        parse_sitemap(data, "https://b.test/s.xml.gz", max_bytes=100_000)


def test_candidates_from_robots_else_usual_paths():
    robots = "User-agent: *\nDisallow: /x\n\nSitemap: https://b.test/sm.xml\nsitemap: /other.xml\n"
    assert robots_sitemaps(robots, "https://b.test/") == ["https://b.test/sm.xml", "https://b.test/other.xml"]
    assert candidates("https://b.test/", robots) == [("https://b.test/sm.xml", False), ("https://b.test/other.xml", False)]
    guessed = candidates("https://b.test/", "User-agent: *\nDisallow:\n")
    assert [u for u, _ in guessed] == ["https://b.test/sitemap.xml", "https://b.test/sitemap_index.xml",
                                       "https://b.test/wp-sitemap.xml"]
    assert all(g for _, g in guessed)


def test_looks_like_and_lastmod_window():
    assert looks_like_sitemap(urlset("")) and looks_like_sitemap(gzip.compress(urlset("")))
    assert not looks_like_sitemap(b"<html></html>")
    assert older_than("2014-01-01", "2015-01-01") and not older_than("2016-01-01", "2015-01-01")
    assert not older_than(None, "2015-01-01") and not older_than("2014-01-01", None)


def test_a_sitemap_the_home_page_declares_is_named_not_guessed():
    from tasks.discover.sitemaps import candidates, declared_sitemaps
    from tasks.fetch.html import parse_html

    root = parse_html('<html><head><link rel="sitemap" type="application/xml" href="/sitemap/sitemap-index.xml">'
                      '<link rel="stylesheet" href="/s.css"></head><body></body></html>', "https://b.test/")
    declared = declared_sitemaps(root, "https://b.test/")
    assert declared == ["https://b.test/sitemap/sitemap-index.xml"]
    assert candidates("https://b.test/", "", declared) == [("https://b.test/sitemap/sitemap-index.xml", False)]
    assert all(guessed for _, guessed in candidates("https://b.test/", "", []))


def test_lastmods_that_are_one_builds_stamp_say_nothing_of_each_page():
    from tasks.discover.sitemaps import stamped

    build = "2016-12-13T13:05:50+01:00"
    pages = [{"url": f"https://b.test/2008/0{m}/p/", "lastmod": build} for m in range(1, 10)]
    assert stamped(pages)  # a 2008 post "modified" on the day of the last build, as every page
    assert stamped(pages + [{"url": "https://b.test/about/", "lastmod": "2016-12-01"}])  # nearly all
    own = [{"url": f"https://b.test/p{d}/", "lastmod": f"2016-11-{d:02d}"} for d in range(1, 10)]
    assert not stamped(own)  # each page its own day
    assert not stamped(pages[:3])  # too few pages to tell
    assert not stamped([{"url": "https://b.test/x/"}] * 9)  # no lastmod at all
