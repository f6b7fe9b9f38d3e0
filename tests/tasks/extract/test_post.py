"""Applying learned rules to a post page, with the page's metadata where a rule finds nothing."""
from __future__ import annotations

from tasks.extract.post import extract_post, matches_entry, rule_of, rules_of

PAGE = """<html><head><title>Blog | A post</title>
<meta property="og:title" content="A post (og)">
<meta name="author" content="Meta Author">
<meta property="article:published_time" content="2014-03-09T10:00:00+01:00">
<script type="application/ld+json">{"@graph": [{"@type": "BlogPosting", "datePublished": "2015-01-02"}]}</script>
</head><body><h1 class="t">A post</h1>
<div class="meta">on <span class="d">9 mars 2014</span> by <a rel="author">Ann Lee</a>, <a rel="author">Bo</a></div>
<div class="c"><p>Hello <b>world</b>.</p><script>var x = 1;</script><p>Bye.</p></div>
</body></html>"""

RULES = {"title": {"rule": "//*[@class='t']", "share": 1.0}, "content": {"rule": "//*[@class='c']"},
         "author": {"rule": "//a[@rel='author']"}, "date": {"rule": "//*[@class='d']"}}


def test_rules_extract_every_field():
    got = extract_post(PAGE, "http://b.test/p", RULES)
    assert got["title"] == "A post"
    assert got["content_text"] == "Hello world. Bye."  # script text is never content; paragraphs apart
    assert got["content_html"].startswith('<div class="c">') and "<script" not in got["content_html"]
    assert got["authors"] == ["Ann Lee", "Bo"]
    assert got["published"] == "2014-03-09"


def test_bare_string_rules_and_runners_up():
    rules = {"title": "//h1", "content": {"rule": "//*[@id='gone']", "fallbacks": ["//*[@class='c']"]}}
    assert rule_of(rules, "title") == "//h1" and rules_of(rules, "content")[1] == "//*[@class='c']"
    got = extract_post(PAGE.encode(), "http://b.test/p", rules)
    assert got["title"] == "A post" and got["content_text"] == "Hello world. Bye."


def test_metadata_fills_in_where_there_are_no_rules():
    got = extract_post(PAGE, "http://b.test/p", {})
    assert got["title"] == "A post (og)"
    assert got["content_text"] is None and got["content_html"] is None
    assert got["authors"] == ["Meta Author"]
    assert got["published"] == "2015-01-02"  # JSON-LD comes before article:published_time
    assert got["sources"] == {"title": "meta", "authors": "meta", "published": "jsonld"}


def test_date_from_time_datetime_and_json_ld():
    page = '<html><body><time datetime="2014-03-09T10:00:00Z">Sunday</time></body></html>'
    assert extract_post(page, None, {"date": "//*[@class='missing']"})["published"] == "2014-03-09T10:00:00+00:00"
    page = PAGE.replace('<meta property="article:published_time" content="2014-03-09T10:00:00+01:00">', "")
    assert extract_post(page, None, None)["published"] == "2015-01-02"


def test_a_learned_author_rule_that_finds_nobody_gives_no_author():
    # the post has no byline: the site-wide meta author must not be credited by a learned rule
    got = extract_post(PAGE, None, {"author": "//*[@class='byline']"})
    assert got["authors"] == []


def test_broken_pages_do_not_raise():
    for html in (None, "", b"\xff\xfe\x00", "<html", "<div>" * 5000 + "deep"):
        got = extract_post(html, "http://b.test/", RULES)
        assert set(got) == {"title", "content_text", "content_html", "authors", "published", "sources"}
    assert extract_post("<div>" * 5000 + "deep text", None, {"content": "//body"})["content_text"] == "deep text"


def test_matches_entry():
    got = extract_post(PAGE, None, RULES)
    full = {"title": "A post", "content_html": "<p>Hello world.</p><p>Bye.</p>"}
    assert matches_entry(got, full)
    assert not matches_entry(got, {"title": "Something else entirely", "content_html": full["content_html"]})
    assert matches_entry(got, {"title": "A post", "summary_html": "Hello world [...]"})
    assert not matches_entry(got, {"title": "A post", "summary_html": "Unrelated summary text here"})


def test_first_matches_without_text_fall_back_to_the_whole_rule():
    """Extraction asks a one-step rule for its first match only; where that has no text
    (an empty heading, a date-less meta line, an attribute that is blank) the whole rule
    is applied, and where the rule finds nothing with text its runner-up is: the same
    record as applying every rule whole."""
    page = """<html><head><meta name="d" content=""><meta name="d" content="2014-03-09"></head><body>
    <h1 class="t"> </h1><h1 class="t">Second heading</h1>
    <p class="when">Posted by the team</p><p class="when">on 9 March 2014</p>
    <div class="c"></div><div class="c"><p>Body text</p></div>
    </body></html>"""
    rules = {"title": {"rule": "//*[@class='t']"}, "content": {"rule": "//div[@class='c']"},
             "date": {"rule": "//*[@class='when']"}, "author": {"rule": "//*[@id='none']"}}
    got = extract_post(page, None, rules)
    assert (got["title"], got["content_text"], got["published"]) == ("Second heading", "Body text", "2014-03-09")
    assert got["content_html"] == '<div class="c"><p>Body text</p></div>'
    got = extract_post(page, None, {"title": {"rule": "//*[@id='gone']", "fallbacks": ["//h1"]},
                                    "date": "//meta[@name='d']/@content",
                                    "content": "//meta[@name='d']/@content"})
    assert (got["title"], got["published"]) == ("Second heading", "2014-03-09")
    assert got["content_text"] is None  # a rule that selects strings names no content element


def test_a_post_without_the_inner_wrapper_is_read_from_its_named_container():
    """The content rule names an inner block of the post's container (the training posts wrapped
    their text in a div); a post written without it (a sitemap post of a list) is read from the
    container the rule names, not left to the page-level extractor. A positional rule's parent
    is a block of the whole page: no container then; nor where the parent repeats (a listing)."""
    from tasks.extract.post import _parent_rule

    rules = {"title": {"rule": "//*[@class='t']"}, "content": {"rule": "//*[@class='post-body']/div[2]"}}
    items = "".join(f"<li><a href='/2014/0{i}/p.html'>Post number {i} of the blog</a></li>" for i in range(1, 9))
    page = (f"<html><body><h1 class='t'>Sitemap</h1><div class='post-body'><div class='colors'></div>"
            f"<h1>Sitemap</h1><ul>{items}</ul></div><div class='side'>Sidebar text</div></body></html>")
    got = extract_post(page, "http://b.test/2010/12/sitemap.html", rules)
    assert got["content_text"].startswith("Sitemap Post number 1 of the blog Post number 2")
    assert "Sidebar" not in got["content_text"]
    assert extract_post(page.replace("class='post-body'", "class='other'"), "http://b.test/x", rules)["content_text"] is None
    listing = page.replace("<div class='side'>", "<div class='post-body'><p>" + "More words. " * 20 + "</p></div><div>")
    assert extract_post(listing, "http://b.test/x", rules)["content_text"] is None
    assert _parent_rule("/html/body/div/div[2]/div[1]") is None and _parent_rule("//*[@id='x']") is None
    assert _parent_rule("//*[@id='content']/div[1]") == "//*[@id='content']"


def test_a_date_printed_beside_the_title_where_no_rule_reads_one():
    """Held-out ytti-ja without a feed: its date rule read the comments' dates and was dropped;
    the day its header prints beside the title is the post's."""
    from tasks.extract.post import extract_post

    html = ("<html><body><div class='entry-title'><h2>Menu部分作成</h2><div class='cat'>ブログ構築過程 2007年05月14日</div>"
            "</div><div class='entry-body'><p>" + "本文です。" * 30 + "</p></div>"
            "<div class='comments'><span class='comment-date'>2007年05月15日 15:16</span></div></body></html>")
    rules = {"title": {"rule": "//div[@class='entry-title']/h2"}, "content": {"rule": "//div[@class='entry-body']"}}
    assert extract_post(html, "http://b.test/blog/2007/05/menu.html", rules)["published"] == "2007-05-14"


def test_a_post_of_photos_alone_is_its_body_not_a_runner_up_rules_text():
    """A photo post's body holds no text: the content rule still holds on it (its photos are the
    content), and a runner-up rule (tried where the rule selects nothing: another template) is
    not tried, which read a sidebar widget's text as the post (held-out Blogger blog)."""
    rules = {"title": "//h1", "content": {"rule": "//*[@class='post-body']", "fallbacks": ["//*[@id='side']/div"]}}
    html = ("<html><body><h1>En la sierra</h1><div class='post-body'><a href='/p.jpg'><img src='/p.jpg'></a></div>"
            "<div id='side'><div>Que cosas me gustan: la playa, hacer inventos</div></div></body></html>")
    got = extract_post(html, "http://b.test/p", rules)
    assert got["title"] == "En la sierra" and not got["content_text"]
    assert "<img" in got["content_html"] and "Que cosas" not in got["content_html"]
    # where the rule selects nothing, the runner-up reads the other template
    got = extract_post(html.replace("post-body", "entry"), "http://b.test/p", rules)
    assert got["content_text"] == "Que cosas me gustan: la playa, hacer inventos"
