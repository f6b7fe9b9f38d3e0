"""page_metadata: JSON-LD, microdata and meta tags read from the parsed page, with their sources."""
from tasks.extract.metadata import page_metadata
from tasks.fetch.html import node_text, parse_html

LD = """<html lang="en"><head><title>A post | My Blog</title>
<meta property="og:site_name" content="My Blog"><meta name="author" content="My Blog">
<script type="application/ld+json">{"@context": "https://schema.org", "@graph": [
 {"@type": "WebSite", "@id": "#site", "name": "My Blog"},
 {"@type": "Person", "@id": "#jane", "name": "Jane Doe"},
 {"@type": "BlogPosting", "headline": "A post", "author": [{"@id": "#jane"}, {"@type": "Person", "name": "John Roe"}],
  "publisher": {"@type": "Organization", "name": "My Blog"}, "datePublished": "2012-03-03T10:00:00+01:00"}]}
</script></head><body><article><h1>A post</h1><p>Body text.</p></article></body></html>"""


def test_json_ld_graph_with_references_and_offset():
    root = parse_html(LD, "http://blog.test/a-post/")
    md = page_metadata(root, "http://blog.test/a-post/")
    assert md["title"] == "A post"
    assert md["authors"] == ["Jane Doe", "John Roe"]
    assert md["published"] == "2012-03-03T10:00:00+01:00"
    assert md["sources"] == {"title": "jsonld", "authors": "jsonld", "published": "jsonld"}
    assert md["site_name"] == "My Blog"


def test_json_ld_is_not_page_text():
    root = parse_html(LD, "http://blog.test/a-post/")
    assert "BlogPosting" not in node_text(root)
    assert "Jane" not in node_text(root.find("body"))


def test_meta_author_that_is_the_site_name_is_dropped():
    html = """<html><head><title>Post | Cool Site</title><meta name="author" content="Cool Site">
    <meta property="og:title" content="Post"><meta property="article:published_time" content="2020-01-02T03:04:05-05:00">
    </head><body><p>x</p></body></html>"""
    md = page_metadata(parse_html(html), None)
    assert md["authors"] == []
    assert md["title"] == "Post" and md["sources"]["title"] == "meta"
    assert md["published"] == "2020-01-02T03:04:05-05:00" and md["sources"]["published"] == "meta"


def test_citation_authors_and_date():
    html = """<html><head><meta name="citation_title" content="On Things">
    <meta name="citation_author" content="Curie, Marie"><meta name="citation_author" content="Pierre Curie">
    <meta name="citation_publication_date" content="2019/05/04"></head><body></body></html>"""
    md = page_metadata(parse_html(html), None)
    assert md["title"] == "On Things"
    assert md["authors"] == ["Curie, Marie", "Pierre Curie"]
    assert md["published"] == "2019-05-04"


def test_microdata_post():
    html = """<html><body><article itemscope itemtype="https://schema.org/BlogPosting">
    <h1 itemprop="headline">Micro</h1><span itemprop="author" itemscope itemtype="https://schema.org/Person">
    <span itemprop="name">Ana Silva</span></span>
    <time itemprop="datePublished" datetime="2015-06-07">June 7</time></article></body></html>"""
    md = page_metadata(parse_html(html, "http://b.test/p"), "http://b.test/p")
    assert md["title"] == "Micro" and md["sources"]["title"] == "microdata"
    assert md["authors"] == ["Ana Silva"]
    assert md["published"] == "2015-06-07"


def test_nothing_known():
    md = page_metadata(parse_html("<p>just text</p>"), None)
    assert md["title"] is None and md["authors"] == [] and md["published"] is None and md["sources"] == {}


def test_broken_json_ld_is_skipped():
    html = '<html><head><script type="application/ld+json">{"headline": </script></head><body>x</body></html>'
    assert page_metadata(parse_html(html), None)["title"] is None


def test_titles_lose_the_site_name_only():
    html = """<html><head><title>Part one - the start | Cool Site</title><meta property="og:site_name" content="Cool Site">
    <meta property="og:title" content="Part one - the start | Cool Site"></head><body></body></html>"""
    md = page_metadata(parse_html(html), None)
    assert md["title"] == "Part one - the start"
    assert md["by_source"]["title_tag"]["title"] == "Part one - the start"
    html = "<html><head><title>Cool Site » A post</title><meta property='og:site_name' content='Cool Site'></head></html>"
    assert page_metadata(parse_html(html), None)["by_source"]["title_tag"]["title"] == "A post"
