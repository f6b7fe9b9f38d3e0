"""A content rule reading one part of a post laid out in parts, widened to the whole post."""
from __future__ import annotations

from tasks.extract.post import extract_root
from tasks.fetch.html import parse_html
from tasks.learn.plausible import checked_rules
from tasks.learn.widen import widened_content

RELATED = "<ul>" + "".join(f"<li><a href='/r{j}/'>Another post about lenses number {j}</a></li>" for j in range(6)) + "</ul>"


def _part(i: int, k: int, words: int, body: str | None = None) -> str:
    text = body if body is not None else "<p>" + " ".join(f"w{i}p{k}x{j}" for j in range(words)) + "</p>"
    return (f"<div class='panel-grid' id='pg-{i}-{k}'><div class='cell'><div class='widget'>"
            f"<h3 class='widget-title'>Part {k} of post {i}</h3><div class='textwidget'>{text}</div></div></div></div>")


def page(i: int, parts: int, twin_body: str | None = None) -> str:
    # a page builder's rows: an empty first row, the post's text, then more parts on longer posts
    rows = _part(i, 0, 0, "") + _part(i, 1, 40) + "".join(_part(i, k, 60, twin_body) for k in range(2, parts + 1))
    return (f"<html><body><header><h1 class='entry-title'>Post {i}</h1><time>2017-0{1 + i % 8}-1{i % 9}</time></header>"
            f"<div class='entry-content'><div id='pl-{i}'>{rows}</div></div>"
            f"<div id='comments'><p>No comments</p></div></body></html>")


RULES = {"content": {"rule": "//*[@class='entry-content']/div/div[2]/div/div/div", "share": 0.7},
         "title": {"rule": "//*[@class='entry-title']", "share": 1.0}}


def _pages(parts, twin_body=None, entry=None):
    return [(page(i, n, twin_body), f"https://b.test/p{i}/", dict(entry or {"content_from": "page"}))
            for i, n in enumerate(parts)]


def test_a_rule_reading_one_part_is_widened_to_the_block_of_parts():
    pages = _pages([1, 3, 1, 2, 1, 4, 1])
    out, note = widened_content(RULES, pages, [parse_html(h, u) for h, u, _ in pages])
    assert note and "widened" in note, note
    assert out["content"]["rule"] == "//*[@class='entry-content']/div"
    assert out["content"]["fallbacks"][-1] == RULES["content"]["rule"]
    html, url, _ = pages[5]
    text = extract_root(parse_html(html, url), html, out, url=url)["content_text"]
    assert "w5p1x0" in text and "w5p4x59" in text  # the first part and the last


def test_posts_of_one_part_only_leave_the_rule_as_it_is():
    pages = _pages([1, 1, 1, 1, 2, 1])  # one longer post: no evidence
    out, note = widened_content(RULES, pages, [parse_html(h, u) for h, u, _ in pages])
    assert note is None and out == RULES


def test_parts_that_are_lists_of_links_are_no_parts_of_the_post():
    pages = _pages([1, 3, 1, 2, 1, 4, 1], twin_body=RELATED + "<p>Related posts</p>")
    out, note = widened_content(RULES, pages, [parse_html(h, u) for h, u, _ in pages])
    assert note is None and out == RULES


def test_a_feeds_full_content_decides_and_the_rule_is_not_widened_by_the_layout():
    """With the feed's own contents the rule was elected on the whole post already: the layout
    is no evidence against it (checked_rules widens only rules learned without them)."""
    pages = [(h, u, {"content_html": "<p>" + " ".join(f"w{i}p1x{j}" for j in range(40)) + "</p>", "title": f"Post {i}"})
             for i, (h, u, _) in enumerate(_pages([1, 3, 1, 2, 1, 4, 1]))]
    out, notes = checked_rules(RULES, pages, extract_root, lambda html, url: "")
    assert not any("widened" in n for n in notes), notes
    assert out["content"]["rule"] == RULES["content"]["rule"]
