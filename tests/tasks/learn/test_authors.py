"""tasks.learn.authors: which names a page's author rule is learned for."""
import pytest

from tasks.fetch.html import parse_html
from tasks.learn.authors import contains_name, page_authors, target_authors


def page(head="", body=""):
    html = f"<html><head><title>A post | Site Name</title>{head}</head><body>{body}</body></html>"
    return parse_html(html, "http://blog.test/p/"), html


def test_the_feed_entry_names_the_author():
    root, html = page('<meta name="author" content="Someone Else">')
    assert target_authors(root, html, {"authors": ["jane@example.org (Jane Doe)"]}) == (["Jane Doe"], "feed")


def test_a_feed_level_author_gives_way_to_the_page_metadata():
    root, html = page('<meta name="author" content="Jane Doe">')
    target = {"authors": ["The Daily Tagline"], "authors_from_feed": True}
    assert target_authors(root, html, target) == (["Jane Doe"], "page")


def test_a_feed_level_author_that_is_the_site_name_is_dropped():
    root, html = page()
    target = {"authors": ["Site Name"], "authors_from_feed": True}
    assert target_authors(root, html, target) == ([], "page")


def test_names_that_are_no_persons_give_way_to_the_page():
    root, html = page('<meta name="author" content="Jane Doe">')
    assert target_authors(root, html, {"authors": ["admin team of the blog x.y"]}) == (["Jane Doe"], "page")


def test_without_a_feed_author_the_page_names_one():
    root, html = page(body='<p class="byline">By Ann Lee</p>')
    assert target_authors(root, html, {}) == (["Ann Lee"], "page")


def test_json_ld_names_the_author_when_the_markup_does_not():
    html = ('<html><head><script type="application/ld+json">{"@type": "BlogPosting", '
            '"author": [{"name": "Jane Doe"}]}</script></head><body></body></html>')
    assert page_authors(parse_html(html, "http://blog.test/"), html) == ["Jane Doe"]


def test_contains_name_matches_whole_words():
    assert contains_name("Posted by Jane Doe, 3 May", "jane doe")
    assert not contains_name("Posted by Janet Doe", "Jane Doe")


# ---- a byline read as a page sign (a feed naming nobody, or no feed)

from tasks.learn.authors import byline_authors  # noqa: E402


@pytest.mark.parametrize("html,want", [
    ("<div class='post'><p>A text by the way of someone.</p><span class='posted'>Posted by patton at August 10, 2002"
     " 11:17 AM</span></div><div id='comments'><span>Posted by Bob at May 3</span></div>", ["patton"]),
    ("<ul><li class='node_submitted'><span>Od veronika v 2006-06-04 00:00</span></li></ul>", ["veronika"]),
    ("<p class='meta'>Written by Jane Doe, 3 March 2014</p>", ["Jane Doe"]),
    ("<div id='comments'><p>Posted by Bob at May 3</p></div>", []),  # a comment's byline is not the post's
    ("<p>Photo by the sea, 2014</p>", []),
    # a post's own footer holds its byline, the name ended by "kl." before the time
    ("<div class='post-footer'><p>Upplagd av Jonas kl. <span>19:38</span></p> Etiketter: resan</div>", ["Jonas"]),
    ("<div class='site-footer'><p>Posted by Bob at May 3</p></div>", []),  # the site's footer is no byline
    # a post's footer whose first line is the byline, its tags and related posts below it (Serendipity)
    ("<div class='serendipity_entryFooter'>Geschrieben von <a href='/autoren/2'>Blogaddict</a> in <a href='/k/1'>"
     "Tipps</a> um <a href='/a/1.html'>08:08</a> | <a href='#c'>Kommentare (3)</a><div>Tags: " + "blogging, tipps, " * 8
     + "</div><div>Artikel mit ähnlichen Themen: " + "Meine Top-9 Feeds, " * 6 + "</div></div>", ["Blogaddict"]),
])
def test_byline_authors(html, want):
    assert byline_authors(parse_html(f"<html><body>{html}</body></html>", "https://b.test/p/")) == want


@pytest.mark.parametrize("html,want", [
    ("<div class='sidebar-item'><p>© Romain Vimont | <a href='/'>RSS</a></p></div>", ["Romain Vimont"]),
    ("<footer>Copyright © 2009-2014 Jane Doe. All rights reserved.</footer>", ["Jane Doe"]),
    ("<footer>© 2024 My Tech Blog</footer>", []),  # the site's name
    ("<p>(c) 2012 The Guardian Media Group</p>", []),  # an organisation
])
def test_copyright_holder(html, want):
    from tasks.learn.authors import copyright_holder

    root = parse_html(f"<html><head><title>My Tech Blog</title></head><body>{html}</body></html>", "https://b.test/")
    assert copyright_holder(root) == want


def test_the_page_author_probes_skip_the_comments():
    """A commenter's name in an `author` class is no author of the post: the byline is."""
    from tasks.learn.authors import page_authors

    html = ("<html><body><div class='post'><h2>Trip</h2><div>Text of the post.</div>"
            "<div class='post-footer'><p>Upplagd av Maja kl. 10:00</p></div></div>"
            "<div class='comment'><p><span class='author'>Carin Berg</span> 3 maj</p><p>Nice!</p></div></body></html>")
    assert page_authors(parse_html(html, "https://b.test/p/"), html) == ["Maja"]


def test_an_author_label_and_its_value_is_a_byline_in_any_language():
    from tasks.fetch.html import parse_html
    from tasks.learn.authors import byline_authors

    for line, name in [("Author: Jane Doe", "Jane Doe"), ("文章作者: blinkfox", "blinkfox"), ("作者：张三", "张三"),
                       ("Autor: Hans Müller, 3. März 2019", "Hans Müller")]:
        root = parse_html(f"<html><body><article><p>Text of the post.</p><div class='meta'>{line}</div></article>"
                          "</body></html>", "http://b.test/p")
        assert byline_authors(root) == [name], line
    root = parse_html("<html><body><p>Author of the week: see below</p></body></html>", "http://b.test/p")
    assert byline_authors(root) == []


@pytest.mark.parametrize("shown,want", [
    ("Сергій Пірогов", "Сергій Пірогов"),  # the page shows another spelling than its metadata's
    ("Sergey Pirogov", "Sergey Pirogov"),  # the page shows the metadata's name: the metadata's
])
def test_the_name_the_page_shows_over_a_metadata_name_it_does_not(shown, want):
    html = ('<html><head><meta name="author" content="Sergey Pirogov"></head><body>'
            f'<h1>Не баг, а фіча #5</h1><p><span class="post-author"><a href="/author/">{shown}</a></span> | 27/12/2022</p>'
            '<section class="post-content"><p>Новий україномовний подкаст.</p></section>'
            '<div class="comment"><span class="comment-author">Олег</span><p>Дякую!</p></div></body></html>')
    assert page_authors(parse_html(html, "http://blog.test/2023/x/"), html) == [want]


def test_a_commenter_s_name_is_not_shown_instead_of_the_metadata_s():
    html = ('<html><head><meta name="author" content="Sergey Pirogov"></head><body><h1>Title</h1>'
            '<p>Text of the post.</p><div class="comment"><span class="comment-author">Олег</span></div></body></html>')
    assert page_authors(parse_html(html, "http://blog.test/2023/x/"), html) == ["Sergey Pirogov"]


def test_a_byline_card_s_own_line_reads_the_name_not_the_card():
    """An author card after the post: "Written by NAME" in its own div, the author's links in the
    next ("twitter github linkedin"). The card's text runs them together ("NAMEtwittergithub...",
    a new blog's every author); the byline's own element reads the name."""
    from tasks.learn.authors import byline_authors

    card = ("<html><body><article><p>The post's words.</p><div><hr/><div class='_1r212zz0'><div>Written by 김맥스</div>"
            "<div class='_1r212zz1'><a href='https://twitter.com/x'>twitter</a><a href='https://github.com/x'>github</a>"
            "</div></div></div></article></body></html>")
    assert byline_authors(parse_html(card, "https://b.test/posts/coupling/")) == ["김맥스"]
