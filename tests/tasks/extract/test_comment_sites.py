"""tasks.extract.comment_sites: the links a post's comments name their authors by."""
from __future__ import annotations

from lxml import html

from tasks.extract.comment_sites import author_links

B = "http://b.test/archives/000043.html"
RULE = {"container": "//div[@class='comments-body']", "author": ".//span/a", "text": "./p"}


def _page(names: list[str]) -> object:
    blocks = "".join(f"<div class='comments-body'><p>A comment that says enough {i}.</p><span>Posted by: {n}"
                     f" at January 31, 2004</span></div>" for i, n in enumerate(names))
    return html.fromstring(f"<html><body><div class='post'><a href='/archives/000042.html'>previous</a></div>"
                           f"{blocks}</body></html>")


def test_the_links_named_by_commenters_are_theirs_not_the_blogs():
    root = _page(["<a href='http://b.test/mt-comments.cgi?__mode=red&amp;id=1'>Mickie</a>",
                  "<a href='http://mickie.example/'>Other</a>", "Plain name"])
    assert author_links(root, RULE, B) == {"http://b.test/mt-comments.cgi?__mode=red&id=1", "http://mickie.example/"}


def test_a_name_inside_its_link_or_holding_it_and_no_rule_or_a_line_rule():
    wrapped = html.fromstring("<html><body><div class='c'><a href='/redirect?id=7'><b>Ann</b></a><p>text</p></div>"
                              "<div class='c'><b><a href='/redirect?id=8'>Bo</a></b><p>text</p></div></body></html>")
    rule = {"container": "//div[@class='c']", "author": ".//b", "text": "./p"}
    assert author_links(wrapped, rule, B) == {"http://b.test/redirect?id=7", "http://b.test/redirect?id=8"}
    assert author_links(wrapped, None, B) == set()
    assert author_links(wrapped, dict(rule, author_line={"lead": "x"}), B) == set()  # the name is a line's word
    assert author_links(wrapped, dict(rule, container="//*[bad"), B) == set()  # a rule this page cannot read
