"""The fallback chain per field and the source it records."""
from tasks.extract.fields import blog_authors, complete
from tasks.extract.post import extract_post
from tasks.fetch.html import parse_html

BARE = "<html><head><title>Post | Site</title>{head}</head><body><h1>Post</h1><p>text</p></body></html>"
LD = ('<script type="application/ld+json">{"@type": "BlogPosting", "headline": "LD title", '
      '"author": {"@type": "Person", "name": "Jane Doe"}, "datePublished": "2012-03-03T10:00:00-05:00"}</script>')


def _complete(head="", entry=None, blog=None, learned=(), found=None):
    root = parse_html(BARE.format(head=head), "http://b.test/p")
    found = found or {"title": None, "authors": [], "published": None, "sources": {}}
    return complete(found, root, "http://b.test/p", entry, blog, learned=learned)


def test_rule_values_are_kept():
    got = _complete(LD, found={"title": "T", "authors": ["A B"], "published": "2012-01-01", "sources": {
        "title": "rule", "authors": "span", "published": "rule"}})
    assert got["title"] == "T" and got["authors"] == ["A B"] and got["sources"]["authors"] == "span"


def test_json_ld_before_meta_before_feed():
    meta = '<meta name="author" content="Meta Person"><meta property="og:title" content="OG title">'
    entry = {"title": "Feed title", "authors": ["Feed Person"], "published": "2012-03-04T00:00:00+00:00"}
    got = _complete(LD + meta, entry)
    assert (got["title"], got["authors"], got["published"]) == ("LD title", ["Jane Doe"], "2012-03-03T10:00:00-05:00")
    assert got["sources"] == {"title": "jsonld", "authors": "jsonld", "published": "jsonld"}
    got = _complete(meta, entry)
    assert got["sources"] == {"title": "meta", "authors": "meta", "published": "feed"}
    assert got["published"] == "2012-03-04T00:00:00+00:00"
    got = _complete("", entry)
    assert got["sources"] == {"title": "feed", "authors": "feed", "published": "feed"}


def test_blog_wide_author_last_and_never_a_site_name():
    blog = {"authors": ["Jane Doe"], "title": "Site"}
    got = _complete('<meta name="author" content="Site">', {"authors": ["Jane Doe"], "authors_from_feed": True}, blog)
    assert got["authors"] == ["Jane Doe"] and got["sources"]["authors"] == "feed_blog"
    got = _complete("", None, {"authors": ["Site"], "title": "Site"})
    assert got["authors"] == []


def test_a_byline_that_names_the_site_names_the_author_last():
    """Held-out blogaddict-de: "Geschrieben von Blogaddict" on every post of the blog Blogaddict. The
    site's name is no author where metadata or a feed says it; the post's own byline still is."""
    rules = {"title": {"rule": "//h4"}, "content": {"rule": "//*[@class='body']"}, "author": None}
    page = ("<html><head><title>Blogaddict</title><meta property='og:site_name' content='Blogaddict'>"
            "<meta name='author' content='Blogaddict'></head><body><h1>Blogaddict</h1><h4>Ein Titel</h4>"
            "<div class='body'>" + "Ein Text über das Bloggen. " * 10 + "</div><div class='entry-footer'>Geschrieben von "
            "<a href='/autoren/2-Blogaddict'>Blogaddict</a> in <a href='/k/1'>Tipps</a> um 08:08</div></body></html>")
    got = extract_post(page, "https://blogaddict.test/a/1.html", rules)
    assert got["authors"] == ["Blogaddict"] and got["sources"]["authors"] == "page"
    # the same page whose only sign of the name is its metadata: no author
    got = extract_post(page.replace("Geschrieben von ", ""), "https://blogaddict.test/a/1.html", rules)
    assert got["authors"] == []


def test_a_learned_rule_that_finds_nobody_takes_no_site_wide_author():
    blog = {"authors": ["Jane Doe"], "title": "Site"}
    got = _complete('<meta name="author" content="Meta Person">', None, blog, learned=("authors",))
    assert got["authors"] == []
    got = _complete(LD, None, blog, learned=("authors",))
    assert got["authors"] == ["Jane Doe"]


def test_blog_authors():
    assert blog_authors({"title": "My Blog"}, [{"authors": ["Jane Doe"]}, {"authors": ["Jane Doe"]}]) == ["Jane Doe"]
    assert blog_authors({"title": "My Blog"}, [{"authors": ["Jane Doe"]}, {"authors": ["John Roe"]}]) == []
    assert blog_authors({"title": "My Blog"}, [{"authors": ["My Blog"]}]) == []
    assert blog_authors({"title": "x"}, [{"authors": ["the best blog about cats ever"]}]) == []


def test_span_rule_extracts_byline_parts():
    page = ('<html lang="de"><body><h1 class="t">Ein Titel (12)</h1><div class="m">9. März 2014 · von Anna Schmidt '
            'und Paul Weber</div><div class="c"><p>Text.</p></div></body></html>')
    rules = {"title": {"rule": "//*[@class='t']", "span": {"re": r"^(.+?)\s*\(\d+\)$"}},
             "author": {"rule": "//*[@class='m']", "span": {"sep": "·", "index": -1}},
             "date": {"rule": "//*[@class='m']"}, "content": {"rule": "//*[@class='c']"}}
    got = extract_post(page, None, rules)
    assert got["title"] == "Ein Titel"
    assert got["authors"] == ["Anna Schmidt", "Paul Weber"]
    assert got["published"] == "2014-03-09"
    assert got["sources"] == {"title": "span", "content": "rule", "authors": "span", "published": "rule"}


def test_a_byline_span_that_does_not_fit_gives_no_garbage_author():
    ld = ('<script type="application/ld+json">{"@type": "BlogPosting", '
          '"author": {"@type": "Person", "name": "Jane Doe"}}</script>')
    page = ('<html><head>' + ld + '</head><body><h1 class="t">T</h1><div class="m">Posted on March 3, 2012 by '
            'Jane Doe Leave a comment</div><div class="c"><p>Text.</p></div></body></html>')
    rules = {"title": {"rule": "//*[@class='t']"}, "content": {"rule": "//*[@class='c']"},
             "author": {"rule": "//*[@class='m']", "span": {"re": r"(?:^|\s)by\s*(.+?)\s*\d+(?:\s|$)"}}}
    got = extract_post(page, None, rules)
    assert got["authors"] == ["Jane Doe"] and got["sources"]["authors"] == "jsonld"


def test_schema_org_people_and_entry_authors_need_not_look_like_names():
    ld = '<script type="application/ld+json">{"@type": "BlogPosting", "author": {"@type": "Person", "name": "jane doe"}}</script>'
    assert _complete(ld)["authors"] == ["jane doe"]
    assert _complete("", {"authors": ["the kitchen crew"]})["authors"] == ["the kitchen crew"]
    assert _complete('<meta name="author" content="the kitchen crew">')["authors"] == []


def test_the_feed_language_joins_authors_where_the_page_names_none():
    from tasks.extract.post import extract_root
    page = '<html><body><h1>T</h1><p class="by">por Ana García y Luis Pérez</p><div class="c">x</div></body></html>'
    rules = {"author": {"rule": "//*[@class='by']"}}
    root = parse_html(page, "http://b.test/p")
    assert extract_root(root, page, rules, None, {"language": "es"})["authors"] == ["Ana García", "Luis Pérez"]
    assert extract_root(root, page, rules, None, {"language": "en"})["authors"] == ["Ana García y Luis Pérez"]


def test_a_blog_named_after_its_author_keeps_the_author():
    assert blog_authors({"title": "Ann Lee's notes"}, [{"authors": ["Ann Lee"]}]) == ["Ann Lee"]


def test_a_feed_author_the_page_never_shows_gives_way_to_the_byline_it_shows():
    """The feed says "anon", the page says "Posted by Mary Patton": the record keeps what a
    reader sees; a feed author the page shows (or a page with no byline) keeps the feed's."""
    def page(byline):
        html = f"<html><body><h1>Post</h1><p>text of the post</p><p class='byline'>{byline}</p></body></html>"
        return parse_html(html, "http://b.test/p")

    found = {"title": "Post", "authors": [], "published": None, "sources": {}}
    for byline, feed, want, source in [("Posted by Mary Patton", "anon", ["Mary Patton"], "page"),
                                       ("Posted by Mary Patton", "Mary Patton", ["Mary Patton"], "feed"),
                                       ("", "anon", ["anon"], "feed")]:
        root = page(byline)
        sign = {"authors": lambda root=root: ["Mary Patton"] if "Patton" in "".join(root.itertext()) else []}
        got = complete(dict(found), root, "http://b.test/p", {"authors": [feed]}, None, sign)
        assert (got["authors"], got["sources"]["authors"]) == (want, source), byline


def test_a_feeds_author_for_the_whole_blog_the_page_never_shows_gives_way_to_its_byline():
    """A two-author blog whose feed names "Fredrik & Hardy" for every entry, each post's byline
    "2007-02-08 by fredrik": the feed's blog-wide name, shown on no page, gave every post the
    same pair (a new blog: author 0 with its feed, 100 without). The byline the page shows wins;
    the blog-wide name stays where the page shows no byline."""
    from tasks.learn.authors import byline_authors

    page = ("<html><body><div class='content'><h2>There is hope</h2><div><span class='byline'>2007-02-08 by "
            "fredrik</span></div><p>The post's words.</p></div></body></html>")
    root = parse_html(page, "http://b.test/2007/02/hope.html")
    found = {"title": "There is hope", "authors": [], "published": "2007-02-08", "sources": {}}
    blog = {"authors": ["Fredrik & Hardy"], "title": "High Level Bits"}
    got = complete(found, root, "http://b.test/2007/02/hope.html", None, blog,
                   page_signs={"byline": lambda: byline_authors(root)})
    assert got["authors"] == ["fredrik"] and got["sources"]["authors"] == "page"
    bare = parse_html("<html><body><p>The post's words.</p></body></html>", "http://b.test/p")
    got = complete(dict(found), bare, "http://b.test/p", None, blog, page_signs={"byline": lambda: byline_authors(bare)})
    assert got["authors"] == ["Fredrik & Hardy"] and got["sources"]["authors"] == "feed_blog"
