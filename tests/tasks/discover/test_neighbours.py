"""A post's previous/next links, and the chain of them an update crawl reads down past `since`
(tasks/discover/neighbours.py, issue 35)."""
from __future__ import annotations

from lxml import html

from tasks.discover.neighbours import BROKEN, PENDING, REACHED, neighbour_links, walk

BASE = "http://blog.example/2020/05/03/c/"
A, B, C = (f"http://blog.example/2020/05/0{d}/{s}/" for d, s in ((4, "d"), (2, "b"), (1, "a")))


def _root(body: str):
    return html.fromstring(f"<html><body>{body}</body></html>")


def _crawler_root(body: str):
    from tasks.fetch.html import parse_html

    return parse_html(f"<html><body>{body}</body></html>", BASE)


def test_rel_prev_and_next_name_the_neighbours():
    root = _root(f'<a href="{A}" rel="next">D</a> <a href="{B}" rel="prev">B</a> <a href="{C}">A</a>')
    assert sorted(neighbour_links(root, BASE, [A, B, C])) == sorted([A, B])


def test_links_marked_by_class_or_id_where_no_rel_is():
    root = _root(f'<div class="blog-pager"><span id="blog-pager-newer-link"><a href="{A}">Newer</a></span>'
                 f'<span class="older"><a href="{B}">Older</a></span></div><a href="{C}">related</a>')
    assert sorted(neighbour_links(root, BASE, [A, B, C])) == sorted([A, B])


def test_links_marked_by_an_arrow_in_their_text_where_nothing_else_marks_them():
    """Movable Type 2's "« Older title | Main | Newer title »" (hedong-zh): no rel, no class.
    (Parsed as the crawler parses: lxml.etree elements, no lxml.html methods.)"""
    _root = _crawler_root
    root = _root(f'<p><a href="{B}">&laquo; Older title</a> | <a href="/">Main</a> | <a href="{A}">Newer title &raquo;</a></p>'
                 f'<p>see <a href="{C}">an older post</a></p>')
    assert sorted(neighbour_links(root, BASE, [A, B, C])) == sorted([A, B])
    listed = "".join(f'<li><a href="{u}">&raquo; {u[-2]}</a></li>' for u in (A, B, C))  # a list: three marked
    assert neighbour_links(_root(f"<ul>{listed}</ul>"), BASE, [A, B, C]) == []
    marked = _root(f'<a href="{A}" class="next">Newer</a> <a href="{B}">&laquo; Older</a>')
    assert neighbour_links(marked, BASE, [A, B, C]) == [A]  # a class mark wins over an arrow


def test_rel_marks_win_over_names():
    root = _root(f'<a href="{A}" rel="prev">A</a><div class="next-posts"><a href="{B}">B</a><a href="{C}">C</a></div>')
    assert neighbour_links(root, BASE, [A, B, C]) == [A]


def test_a_page_marking_many_posts_names_no_neighbours():
    root = _root("".join(f'<div class="older-posts"><a href="{u}">x</a></div>' for u in (A, B, C)))
    assert neighbour_links(root, BASE, [A, B, C]) == []


def test_only_post_links_count_and_never_the_page_itself():
    root = _root(f'<a href="{BASE}" rel="next">me</a><a href="/2020/05/03/c/comment-page-2/" rel="prev">comments</a>')
    assert neighbour_links(root, BASE, [BASE, A]) == []


def _days(**kw):
    return {f"http://blog.example/{k}/": v for k, v in kw.items()}


def _u(s):
    return f"http://blog.example/{s}/"


SINCE = "2020-03-01"


def test_a_chain_from_the_newest_post_down_past_since_is_reached():
    near = {_u("e"): [_u("d")], _u("d"): [_u("e"), _u("c")], _u("c"): [_u("d"), _u("old")]}
    days = _days(e="2020-05-05", d="2020-04-04", c="2020-03-03", old="2020-01-01")
    assert walk(near, days, SINCE) == (REACHED, [_u("e"), _u("d"), _u("c"), _u("old")])


def test_a_chain_waits_for_a_post_not_read_yet():
    near = {_u("e"): [_u("d")], _u("d"): [_u("e"), _u("c")]}
    days = _days(e="2020-05-05", d="2020-04-04")  # c: not read, no day known
    assert walk(near, days, SINCE)[0] == PENDING
    # the newest post read links two others: a newer one may not be read yet
    near = {_u("d"): [_u("e"), _u("c")]}
    assert walk(near, _days(d="2020-04-04"), SINCE)[0] == PENDING


def test_posts_of_one_day_start_the_chain_at_its_end():
    near = {_u("e2"): [_u("e1")], _u("e1"): [_u("e2"), _u("old")]}
    days = _days(e2="2020-05-05", e1="2020-05-05", old="2020-01-01")
    assert walk(near, days, SINCE)[0] == REACHED


def test_what_is_no_chain_in_date_order_is_broken():
    old = "2020-01-01"
    # a post's day after the one before it
    near = {_u("e"): [_u("d")], _u("d"): [_u("e"), _u("c")], _u("c"): [_u("d"), _u("old")]}
    assert walk(near, _days(e="2020-05-05", d="2020-04-04", c="2020-04-20", old=old), SINCE)[0] == BROKEN
    # links one way only (a "related posts" box marked "next")
    near = {_u("e"): [_u("d")], _u("d"): [_u("c")], _u("c"): [_u("d"), _u("old")]}
    assert walk(near, _days(e="2020-05-05", d="2020-04-04", c="2020-03-03", old=old), SINCE)[0] == BROKEN
    # a post read with no day
    near = {_u("e"): [_u("d")], _u("d"): [_u("e"), _u("old")]}
    assert walk(near, _days(e="2020-05-05", d="", old=old), SINCE)[0] == BROKEN


def test_the_blogs_first_post_ends_a_chain_of_new_posts():
    near = {_u("b"): [_u("a")], _u("a"): [_u("b")]}
    assert walk(near, _days(b="2020-05-05", a="2020-04-04"), SINCE) == (REACHED, [_u("b"), _u("a")])
