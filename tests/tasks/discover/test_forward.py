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
