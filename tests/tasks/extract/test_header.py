"""The post's header cut out of a content block that holds it (issue 31)."""
from __future__ import annotations

from tasks.extract.post import extract_root
from tasks.fetch.html import parse_html

BODY = "<p>First paragraph of the post, with enough words to be a post.</p><p>Second paragraph here.</p>"


def _page(header: str) -> str:
    return f"<html><body><main><article class='post'>{header}{BODY}</article></main></body></html>"


RULES = {"title": {"rule": "//*[@class='post-title']"}, "content": {"rule": "//main"}}


def test_the_header_beside_the_paragraphs_is_not_content():
    html = _page("<div class='head'><h1 class='post-title'>My title</h1><p>Saturday 6 Jan 2018 · 1 min read</p></div>")
    got = extract_root(parse_html(html, "https://b.test/p/"), html, RULES)
    assert got["title"] == "My title"
    assert got["content_text"].startswith("First paragraph") and "min read" not in got["content_text"]
    assert "My title" not in got["content_html"]
    # the page itself is left whole (the cut is made on a copy)
    assert "My title" in parse_html(html, "https://b.test/p/").xpath("string(//main)")


def test_a_title_outside_the_content_block_stays_and_a_bare_heading_inside_is_cut_alone():
    html = _page("").replace("<main>", "<h1 class='post-title'>My title</h1><main>")
    got = extract_root(parse_html(html, "https://b.test/p/"), html, RULES)
    assert got["content_text"].startswith("First paragraph") and got["title"] == "My title"
    # the heading right beside the paragraphs: the heading alone goes, the post's text stays whole
    html = _page("<h1 class='post-title'>My title</h1><p class='lead'>A lead paragraph of the post.</p>")
    got = extract_root(parse_html(html, "https://b.test/p/"), html, RULES)
    assert got["content_text"].startswith("A lead paragraph") and got["content_text"].endswith("Second paragraph here.")


def test_a_header_holding_half_the_block_is_no_header():
    """A one-line post under a long header: the header is not cut whole (the rest would be next to
    nothing), only the title in it."""
    html = ("<html><body><main><div class='head'><h1 class='post-title'>Title</h1><p>" + "tag " * 20 + "</p></div>"
            "<p>One line.</p></main></body></html>")
    got = extract_root(parse_html(html, "https://b.test/p/"), html, RULES)
    assert got["content_text"].endswith("One line.") and "tag" in got["content_text"]
    assert not got["content_text"].startswith("Title")


def test_the_templates_line_above_the_title_goes_with_it():
    """Movable Type 3: one `div.content` holds "« Previous | Main | Next »", the day's heading,
    the title, the post (a new held-out blog's content 61 %: every post began with them)."""
    html = ("<html><body><main><p align='right'><a href='/a.html'>« Intro</a> | <a href='/'>Main</a> | "
            "<a href='/b.html'>Next one »</a></p><h2>June 12, 2005</h2><h3 class='post-title'>My title</h3>"
            f"{BODY}</main></body></html>")
    got = extract_root(parse_html(html, "https://b.test/p/"), html, RULES)
    assert got["content_text"].startswith("First paragraph") and got["content_text"].endswith("Second paragraph here.")
    # what says more above the title stays (a lead longer than a template's line)
    lead = "<p>" + "A long lead before the title, the post's own words. " * 5 + "</p>"
    html = html.replace("<h2>June 12, 2005</h2>", lead)
    got = extract_root(parse_html(html, "https://b.test/p/"), html, RULES)
    assert "A long lead" in got["content_text"]
