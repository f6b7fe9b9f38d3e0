"""Feeds: discovery from a home page, parsing every feed dialect, paging, comment feeds."""
from __future__ import annotations

import urllib.parse

import pytest

from tasks.discover.feeds import (USUAL_PATHS, FeedError, discover_feeds, next_page_urls, parse_comment_feed, twin,
                         parse_feed)

# ---------------------------------------------------------------- discovery

HOME = """<html><head><base href="/blog/">
<link rel="alternate" type="application/rss+xml" title="Comments Feed" href="/comments/feed/">
<link rel="alternate" type="application/rss+xml" title="Tag: cats" href="/tag/cats/feed/">
<link rel="alternate" type="application/atom+xml" title="Elsewhere" href="http://feeds.other.test/blog">
<link rel="alternate" type="application/rss+xml; charset=utf-8" title="Blog" href="feed.xml">
<link rel="alternate" type="text/html" href="/fr/">
<link rel="stylesheet" type="text/css" href="/style.css">
</head><body><a href="/rss.xml">RSS</a><a href="/comments/rss.xml">comments</a></body></html>"""


def test_declared_feeds_first_main_feed_leading():
    got = discover_feeds(HOME, "http://blog.test/")
    # the main feed on the site's host, then the main feed elsewhere (FeedBurner), then tag feeds
    assert got[:3] == ["http://blog.test/blog/feed.xml", "http://feeds.other.test/blog",
                       "http://blog.test/tag/cats/feed/"]
    assert "http://blog.test/comments/feed/" not in got  # comment feeds go when a posts feed exists
    assert got[3] == "http://blog.test/rss.xml"  # then feed links in the body
    assert "http://blog.test/comments/rss.xml" not in got
    assert "http://blog.test/fr/" not in got and "http://blog.test/style.css" not in got


def test_usual_paths_when_nothing_is_declared():
    got = discover_feeds("<html><body>no feeds</body></html>", "http://blog.test/journal/")
    assert got[0] == "http://blog.test/journal/feed/"
    for p in USUAL_PATHS:
        if "/" not in p.rstrip("/") and "?" not in p[1:]:  # at the top of a directory: always guessed
            assert "http://blog.test/" + p in got
            assert "http://blog.test/journal/" + p in got
    assert len(got) == len(set(got))


def test_a_section_is_guessed_only_where_the_page_links_into_it():
    """A site whose pages lead into no /blog/ or /feeds/ section has no feed there: those guesses
    are requests a blog without a feed answered with 404 on every crawl."""
    bare = discover_feeds("<html><body><a href='/about/'>about</a></body></html>", "http://blog.test/")
    assert not [u for u in bare if urllib.parse.urlsplit(u).path.startswith(("/blog", "/feeds/"))]
    assert "http://blog.test/rss.xml" in bare
    html = "<html><body><a href='/blog'>blog</a><a href='/feeds/x'>f</a><a href='//other.test/blog/'>o</a></body></html>"
    linked = discover_feeds(html, "http://blog.test/")
    assert {"http://blog.test/blog/feed/", "http://blog.test/blog?format=rss",
            "http://blog.test/feeds/posts/default"} <= set(linked)
    other = discover_feeds("<html><body><a href='//other.test/blog/x'>o</a></body></html>", "http://blog.test/")
    assert not [u for u in other if urllib.parse.urlsplit(u).path.startswith("/blog")]


def test_guesses_name_the_declared_feeds_format_first():
    """A blog declaring its feed on another host (an Atom feed at a feed service) that the crawl
    cannot read keeps its own copy in the same format: `/atom.xml` is asked before `/feed/` and
    `/rss.xml` (two 404s on every crawl), and an RSS declaration asks the RSS paths first."""
    def guesses(ftype):
        html = f'<link rel="alternate" type="{ftype}" href="http://feeds.other.test/x">'
        return [u for u in discover_feeds(html, "http://blog.test/") if u.startswith("http://blog.test/")]

    atom = guesses("application/atom+xml")
    assert atom[0] == "http://blog.test/atom.xml"
    assert atom.index("http://blog.test/feed/") < atom.index("http://blog.test/rss.xml")
    rss = guesses("application/rss+xml")
    assert rss[0] == "http://blog.test/rss.xml"
    assert rss.index("http://blog.test/feed/") < rss.index("http://blog.test/atom.xml")
    # a type that names no format keeps the usual order
    assert guesses("application/xml")[0] == "http://blog.test/feed/"
    assert sorted(atom) == sorted(rss) == sorted(guesses("text/xml"))  # the same paths, in another order


def test_twin_adds_or_takes_away_the_trailing_slash():
    assert twin("http://b.test/feed/") == "http://b.test/feed"
    assert twin("http://b.test/rss") == "http://b.test/rss/"
    assert twin("http://b.test/?feed=rss2") == "http://b.test/?feed=rss2"


def test_without_guesses_only_what_the_page_declares_or_links():
    html = ('<link rel="alternate" type="application/rss+xml" href="/atom.xml">'
            '<body><a href="/index.xml">RSS</a></body>')
    got = discover_feeds(html, "http://blog.test/", guesses=False)
    assert got and set(got) <= {"http://blog.test/atom.xml", "http://blog.test/index.xml"}
    assert discover_feeds("<html><body>no feeds</body></html>", "http://blog.test/", guesses=False) == []


def test_a_feed_linked_in_the_body_by_its_type_or_a_feed_file_name_is_found():
    """Pelican's theme links its feed as <a type="application/atom+xml" href=".../feeds/all.atom.xml">
    and declares none in the head: the usual paths would never find it."""
    typed = '<body><a href="/feeds/all.atom.xml" type="application/atom+xml">atom</a></body>'
    assert discover_feeds(typed, "http://b.test/", guesses=False) == ["http://b.test/feeds/all.atom.xml"]
    named = '<body><a href="/feeds/posts.rss.xml">subscribe</a><a href="/posts/xml-tips.html">x</a></body>'
    assert discover_feeds(named, "http://b.test/", guesses=False) == ["http://b.test/feeds/posts.rss.xml"]
    tag = '<body><a href="/tag/python.atom.xml" type="application/atom+xml">python</a></body>'
    assert discover_feeds(tag, "http://b.test/", guesses=False) == []  # a tag's feed is no main feed


def test_only_comment_feeds_declared_are_kept():
    html = '<link rel="alternate" type="application/rss+xml" title="Comments" href="/comments/feed/">'
    assert discover_feeds(html, "http://b.test/")[0] == "http://b.test/comments/feed/"


def test_discovery_survives_broken_input():
    for html in ("", b"", b"\x00\x01", "<?xml version='1.0' encoding='utf-8'?><html/>"):
        got = discover_feeds(html, "http://b.test/")
        assert got[0] == "http://b.test/feed/"


@pytest.mark.parametrize("blog, declared, served", [
    ("balinterdi", "http://feeds.feedburner.com/balinterdi", "/atom.xml"),  # declares only FeedBurner
    ("lilianweng", "/index.xml", "/index.xml"),
    ("trottomatic", "/feed/", "/feed/")])
def test_discovery_on_the_eval_blogs(shared_dir, blog, declared, served):
    """The declared feed leads; the first candidate the site itself serves as a feed is its feed."""
    from tests.tasks.learn.test_fields import ORIGIN, harness, served as page, site_file
    b = shared_dir / "eval" / "blogs" / blog
    got = discover_feeds(page(b, b / "site" / "index.html"), ORIGIN + "/")
    assert got[0] == (declared if declared.startswith("http") else ORIGIN + declared)
    H = harness(shared_dir)
    first = next(u for u in got if (f := site_file(b / "site", u)) and H.is_feed(f.read_bytes()))
    assert first == ORIGIN + served


# ---------------------------------------------------------------- parsing

RSS091 = b"""<?xml version="1.0"?><rss version="0.91"><channel><title>Old</title><link>http://b.test/</link>
<item><title>One &amp; only</title><link>http://b.test/1</link><description>Hello &lt;b&gt;world&lt;/b&gt;</description></item>
</channel></rss>"""
RSS10 = b"""<?xml version="1.0"?><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"
 xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
<channel rdf:about="http://b.test/"><title>RDF</title><link>http://b.test/</link></channel>
<item rdf:about="http://b.test/2014/03/09/p"><title>P</title><link>http://b.test/2014/03/09/p</link>
<dc:creator>Ann Lee</dc:creator><dc:date>2014-03-09T10:00:00+01:00</dc:date><description>Sum</description></item>
</rdf:RDF>"""
RSS20 = b"""<?xml version="1.0" encoding="utf-8"?><rss version="2.0" xmlns:content="http://purl.org/rss/1.0/modules/content/"
 xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:wfw="http://wellformedweb.org/CommentAPI/"
 xmlns:slash="http://purl.org/rss/1.0/modules/slash/"><channel><title>WP</title><link>http://b.test/</link>
<generator>https://wordpress.org/?v=6.4</generator><language>fr-FR</language>
<item><title>D\xc3\xa9j\xc3\xa0 vu</title><link>http://b.test/deja-vu/</link><guid isPermaLink="false">http://b.test/?p=7</guid>
<pubDate>Sun, 09 Mar 2014 23:30:00 -0800</pubDate><dc:creator><![CDATA[Ann]]></dc:creator>
<description><![CDATA[Short [&#8230;]]]></description>
<content:encoded><![CDATA[<p>Full <a href="/x">text</a></p>]]></content:encoded>
<wfw:commentRss>http://b.test/deja-vu/feed/</wfw:commentRss><slash:comments>3</slash:comments>
<enclosure url="/a.mp3" length="123" type="audio/mpeg"/></item></channel></rss>"""
ATOM = b"""<?xml version="1.0" encoding="utf-8"?><feed xmlns="http://www.w3.org/2005/Atom" xml:base="http://b.test/">
<title>Atom</title><link rel="alternate" href="/"/><link rel="next" href="/atom.xml?page=2"/>
<author><name>Site Owner</name></author>
<entry><title type="html">A &lt;em&gt;title&lt;/em&gt;</title><link rel="alternate" type="text/html" href="/2014/03/09/a.html"/>
<link rel="replies" type="application/atom+xml" href="/2014/03/09/a/comments.xml"/>
<id>tag:b.test,2014:a</id><updated>2014-03-09T10:00:00Z</updated>
<summary>Summary only</summary></entry></feed>"""


def test_rss_091():
    f = parse_feed(RSS091, "http://b.test/rss")
    e = f["entries"][0]
    assert (e["title"], e["url"], e["content_html"]) == ("One & only", "http://b.test/1", None)
    assert e["content_is_summary"] and "world" in e["summary_html"]
    assert f["bozo"] is None


def test_rss_10_rdf():
    e = parse_feed(RSS10, "http://b.test/index.rdf")["entries"][0]
    assert e["url"] == "http://b.test/2014/03/09/p"
    assert e["authors"] == ["Ann Lee"]
    assert e["published"] == "2014-03-09T10:00:00+01:00"


def test_rss_20_wordpress():
    f = parse_feed(RSS20, "http://b.test/feed/")
    assert f["generator"].startswith("https://wordpress.org") and f["language"] == "fr-FR"
    e = f["entries"][0]
    assert e["title"] == "Déjà vu" and e["url"] == "http://b.test/deja-vu/"
    assert e["content_html"] == '<p>Full <a href="http://b.test/x">text</a></p>'  # relative links resolved
    assert e["summary_html"].startswith("Short") and not e["content_is_summary"]
    assert e["published"] == "2014-03-09T23:30:00-08:00"  # the feed's own offset kept
    assert e["authors"] == ["Ann"] and not e["authors_from_feed"]
    assert e["comments_feed"] == "http://b.test/deja-vu/feed/" and e["comment_count"] == 3
    assert e["enclosures"] == [{"url": "http://b.test/a.mp3", "type": "audio/mpeg", "length": 123}]


def test_atom():
    f = parse_feed(ATOM, "http://b.test/atom.xml")
    e = f["entries"][0]
    assert e["title"] == "A title" and e["url"] == "http://b.test/2014/03/09/a.html"
    assert e["published"] == "2014-03-09T10:00:00+00:00"  # only <updated>: it stands for the date
    assert e["authors"] == ["Site Owner"] and e["authors_from_feed"]  # inherited from <feed>: weak
    assert e["content_is_summary"] and e["summary_html"] == "Summary only"
    assert e["comments_feed"] == "http://b.test/2014/03/09/a/comments.xml"
    assert f["next"] == ["http://b.test/atom.xml?page=2"]


@pytest.mark.parametrize("data", [b"", b"   ", b"<html><body>Not found</body></html>", b"\x00\x01\x02\x03" * 50,
                                  b"<?xml version='1.0'?><rss version='2.0'><channel><title>x</title></channel></rss>",
                                  b'{"not": "a feed"}'])
def test_not_feeds_raise_feed_error(data):
    with pytest.raises(FeedError):
        parse_feed(data, "http://b.test/feed")


def test_truncated_feed_gives_what_it_can():
    cut = RSS20.replace(b"</channel></rss>", b"") + b"<item><title>Half"
    f = parse_feed(cut, "http://b.test/feed/")
    assert f["bozo"] and f["entries"][0]["title"] == "Déjà vu"


# ---------------------------------------------------------------- the 2013 test feeds

@pytest.mark.parametrize("path, n, generator, full", [
    ("korben.info/feed", 30, "wordpress", True),
    ("mnmlist.com/feed", 10, "wordpress", True),
    ("www.huffingtonpost.com/feed", 15, "movable type", True),
    ("digital-examples.blogspot.com/feed", 25, "blogger", True),
    ("letitcrash.com/rss", 20, "tumblr", False),
    ("meinrhyme.wordpress.com/feed", 50, "wordpress", True),
    ("www.quantumdiaries.org/feed", 15, "wordpress", True),
])
def test_real_feeds(shared_dir, path, n, generator, full):
    data = (shared_dir / "blogforever-testdata" / path).read_bytes()
    host = path.split("/")[0]
    f = parse_feed(data, f"http://{host}/{path.split('/', 1)[1]}")
    assert len(f["entries"]) == n
    assert generator in (f["generator"] or "").lower() or generator in (f["title"] or "").lower() \
        or generator in str(f["link"]).lower()
    for e in f["entries"]:
        assert urllib.parse.urlsplit(e["url"]).scheme == "http" and e["title"]
        assert "2010" <= e["published"][:4] <= "2013"  # crawled in 2013
        assert (e["content_html"] is not None) == full


def test_real_comment_feed(shared_dir):
    f = shared_dir / "blogforever-testdata" / "keikolynn.com" / "feeds" / "8790405898372485787" / "comments" / "default"
    comments = parse_comment_feed(f.read_bytes(), "http://www.keikolynn.com/feeds/8790405898372485787/comments/default")
    assert len(comments) == 25
    for c in comments:
        assert c["author"] and c["published"] and c["content_text"] and c["id"]


# ---------------------------------------------------------------- paging

def _feed(**kw):
    return {"entries": [{"url": f"http://b.test/{i}"} for i in range(10)], "next": [], "generator": None} | kw


def test_atom_rel_next_first():
    got = next_page_urls(_feed(next=["http://b.test/atom.xml?page=2"]), "http://b.test/atom.xml", 1)
    assert got == ["http://b.test/atom.xml?page=2"]


def test_wordpress_paged():
    assert next_page_urls(_feed(generator="https://wordpress.org/?v=6.4"), "http://b.test/feed/", 1) == \
        ["http://b.test/feed/?paged=2"]
    assert next_page_urls(_feed(), "http://b.test/?feed=rss2&paged=2", 2) == ["http://b.test/?feed=rss2&paged=3"]


def test_blogger_start_index():
    got = next_page_urls(_feed(generator="Blogger"), "http://x.blogspot.com/feeds/posts/default", 1)
    assert got == ["http://x.blogspot.com/feeds/posts/default?start-index=11&max-results=10"]
    got = next_page_urls(_feed(generator="Blogger"),
                         "http://x.blogspot.com/feeds/posts/default?start-index=11&max-results=10", 2)
    assert got == ["http://x.blogspot.com/feeds/posts/default?start-index=21&max-results=10"]


def test_no_paging_without_entries_or_platform():
    assert next_page_urls(_feed(entries=[]), "http://b.test/feed/", 1) == []
    assert next_page_urls(_feed(), "http://b.test/index.xml", 1) == []


# --- hostile feeds (issue 19): DTD entities are refused before any parser sees the bytes

def test_entity_bomb_refused_before_parsing(monkeypatch):
    import feedparser

    from tasks.discover import feeds
    from tests.farm.faults import entity_bomb

    called = []
    monkeypatch.setattr(feedparser, "parse", lambda *a, **kw: called.append(1))
    for data in (entity_bomb(10_000, 2_000),
                 entity_bomb(10, 10).decode().encode("utf-16"),  # BOM and UTF-16: the ASCII is hidden
                 entity_bomb(10, 10).replace(b"<!ENTITY", b"<! ENTITY"),
                 b'<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><rss>&x;</rss>'):
        with pytest.raises(feeds.FeedError) as e:
            feeds.parse_feed(data, "http://example.org/feed")
        assert "entit" in str(e.value)
        with pytest.raises(feeds.FeedError):
            feeds.parse_comment_feed(data, "http://example.org/feed")
    assert not called


def test_feed_size_is_capped(monkeypatch):
    from tasks.discover import feeds

    monkeypatch.setattr(feeds, "MAX_FEED_BYTES", 1000)
    with pytest.raises(feeds.FeedError) as e:
        feeds.parse_feed(b"<rss>" + b" " * 2000 + b"</rss>", "http://example.org/feed")
    assert "exceeds" in str(e.value)


@pytest.mark.parametrize("declared,header", [("utf-7", None), ("utf-8", "rot13"), ("utf-8", "base64"),
                                             ("UTF7", None)])
def test_feed_in_a_refused_codec_is_read_as_text(declared, header):
    from tasks.discover.feeds import parse_feed

    data = (f'<?xml version="1.0" encoding="{declared}"?><rss version="2.0"><channel><title>T +ADw-b+AD4-</title>'
            f'<link>http://e.org/</link><item><title>a</title><link>http://e.org/a</link></item></channel></rss>').encode()
    feed = parse_feed(data, "http://e.org/feed", f"application/rss+xml; charset={header}" if header else None)
    assert feed["title"] == "T +ADw-b+AD4-" and feed["entries"][0]["url"] == "http://e.org/a"
