"""tasks.discover.forward: a start page that only forwards names the blog's real home."""
from __future__ import annotations

import pytest

from tasks.discover.forward import forward_target
from tasks.fetch.html import parse_html

ROOT = "https://host.test/"


def _page(head: str = "", body: str = "") -> object:
    return parse_html(f"<html><head><title>host</title>{head}</head><body>{body}</body></html>", ROOT)


@pytest.mark.parametrize("head,body,want", [
    # a meta refresh, relative or absolute, quoted or not
    ('<meta http-equiv="refresh" content="0; url=/trip/">', '<a href="/trip/">Our trip</a>', "https://host.test/trip/"),
    ("<meta http-equiv='Refresh' content=\"2;URL='https://host.test/blog/'\">", "", "https://host.test/blog/"),
    # a stand-in page whose one link is the blog under a path
    ("", '<p>Moved: <a href="/blog/">the blog</a></p>', "https://host.test/blog/"),
    # a refresh of the page itself, or a late one (a ticker), is no forward
    ('<meta http-equiv="refresh" content="60">', "", None),
    ('<meta http-equiv="refresh" content="600; url=/news/">', "<p>news</p>", None),
    # a home page: several links, or a feed, or much text
    ("", '<a href="/a-post/">A post</a> <a href="/about/">About</a>', None),
    ('<link rel="alternate" type="application/rss+xml" href="/feed.xml">', '<a href="/blog/">blog</a>', None),
    ("", "<p>" + "words of a real page " * 30 + '</p><a href="/blog/">blog</a>', None),
    # one link to another site, or back to the root: not where this blog lives
    ("", '<a href="https://elsewhere.test/blog/">elsewhere</a>', None),
    ("", '<a href="/">home</a>', None),
])
def test_forward_target(head, body, want):
    assert forward_target(_page(head, body), ROOT) == want


FRAMESET = ('<html><head><title>home</title></head><frameset cols="20%,*"><frame src="nav.html">'
            '<frame src="https://host.test/main.html#top"><frame src="https://other.test/ad.html"></frameset></html>')


def test_a_frameset_s_frames_are_its_content():
    from tasks.discover.forward import frames

    assert frames(parse_html(FRAMESET, ROOT), ROOT) == ["https://host.test/nav.html", "https://host.test/main.html"]
    # a page with a body, or a frameset that declares a feed, is a page of its own
    assert frames(_page(body='<iframe src="/nav.html"></iframe>'), ROOT) == []
    assert frames(parse_html(FRAMESET.replace("</head>", '<link rel="alternate" type="application/rss+xml" '
                                                          'href="/rss.xml"></head>'), ROOT), ROOT) == []


def test_the_pages_a_frameset_s_frames_link_are_probed_in_order_bounded():
    from tasks.discover.forward import MAX_PROBES, declares_feed, frame_probes

    nav = parse_html('<a href="/">home</a> <a href="main.html">main</a> <a href="/blog/">Blog</a> '
                     '<a href="mailto:me@host.test">mail</a> <a href="https://other.test/">out</a> '
                     + " ".join(f'<a href="/p{i}.html">p</a>' for i in range(30)), ROOT)
    got = frame_probes([nav], ["https://host.test/main.html"], ROOT)
    assert got[0] == "https://host.test/blog/" and len(got) == MAX_PROBES
    assert all(u.startswith("https://host.test/") and u not in (ROOT, "https://host.test/main.html") for u in got)
    assert declares_feed(_page('<link rel="alternate" type="application/atom+xml" href="/atom.xml">'))
    assert not declares_feed(_page('<link rel="stylesheet" href="/s.css">'))


def test_a_landing_page_s_few_links_are_where_the_blog_s_home_is_looked_for():
    from tasks.discover.forward import MAX_LANDING_LINKS, landing_links

    landing = ('<h1>Lawyer online</h1><p>Advice on contracts, property and family law, every day.</p>'
               '<a href="/blog.html">Our blog</a> <a href="/2010/12/sitemap.html#top">Site map</a> '
               '<a href="/">Home</a> <a href="https://other.test/">a friend</a>')
    assert landing_links(_page(body=landing), ROOT) == ["https://host.test/blog.html",
                                                        "https://host.test/2010/12/sitemap.html"]
    # a page that declares a feed is a home of its own; a blog's home links many pages of its site
    assert landing_links(_page('<link rel="alternate" type="application/rss+xml" href="/rss.xml">', landing), ROOT) == []
    listing = " ".join(f'<a href="/2014/0{i % 9 + 1}/post-{i}.html">post {i}</a>' for i in range(MAX_LANDING_LINKS + 1))
    assert landing_links(_page(body=listing), ROOT) == []
