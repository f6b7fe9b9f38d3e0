"""Posts recognised by template: the learned rules find title, content (alone) and date."""
from __future__ import annotations

from tasks.discover.recognise import template_post
from tasks.extract.post import extract_root
from tasks.fetch.html import parse_html

RULES = {"title": {"rule": "//*[@class='post-title']", "share": 1.0},
         "content": {"rule": "//*[@class='post-content']", "share": 1.0},
         "date": {"rule": "//*[@class='post-date']", "share": 0.9},
         "author": {"rule": "//*[@class='post-author']", "share": 0.9}}
BODY = "<p>" + "Words of a post that say something worth reading. " * 4 + "</p>"


def check(html: str) -> bool:
    root = parse_html(html, "https://b.test/x/")
    return template_post(root, extract_root(root, html, RULES), RULES)


def post(date=True, author=True, n=1) -> str:
    one = ("<h1 class='post-title'>A title</h1>" + ("<span class='post-date'>March 9, 2014</span>" if date else "")
           + ("<span class='post-author'>Jo</span>" if author else "") + f"<div class='post-content'>{BODY}</div>")
    return f"<html><body>{one * n}</body></html>"


def test_a_post_of_the_template():
    assert check(post())


def test_a_page_without_date_or_byline_is_no_post():
    assert not check(post(date=False))
    assert not check(post(author=False))


def test_a_listing_repeating_the_template_is_no_post():
    assert not check(post(n=5))


def test_another_template_is_no_post():
    assert not check(f"<html><body><h1>A title</h1><article>{BODY}</article></body></html>")


def test_no_recognition_without_a_reliable_date_rule():
    """Undated posts look like the site's pages: nothing is recognised by template then."""
    rules = dict(RULES, date={"rule": "//*[@class='post-date']", "share": 0.3})
    html = post()
    root = parse_html(html, "https://b.test/x/")
    assert not template_post(root, extract_root(root, html, rules), rules)
