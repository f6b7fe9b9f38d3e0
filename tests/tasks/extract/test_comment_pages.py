"""tasks.extract.comment_pages: which comment page the post page itself is, by its own pagination."""
from __future__ import annotations

from lxml import html

from tasks.extract.comment_pages import own_comment_page

POST = "https://b.test/2020/01/02/a-post/"


def _page(nav: str):
    return html.fromstring(f"<html><body><article><p>text</p></article><ol class='comments'><li>c</li></ol>"
                           f"<nav class='comment-navigation'>{nav}</nav></body></html>")


def test_a_post_page_linking_the_next_comment_page_is_the_first():
    root = _page(f"<div class='nav-next'><a href='{POST}comment-page-2/#comments'>Newer</a></div>")
    assert own_comment_page(root, POST) == POST + "comment-page-1/"


def test_a_post_page_linking_the_previous_comment_page_is_the_last():
    root = _page(f"<div class='nav-previous'><a href='{POST}comment-page-3/#comments'>Older</a></div>")
    assert own_comment_page(root, POST) == POST + "comment-page-4/"
    root = _page(f"<a rel='prev' href='{POST}?cpage=1'>Older</a>")
    assert own_comment_page(root, POST) == POST + "?cpage=2"


def test_the_number_marked_current_names_it():
    nav = (f"<a class='prev page-numbers' href='{POST}comment-page-1/'>&laquo;</a>"
           f"<a class='page-numbers' href='{POST}comment-page-1/'>1</a>"
           f"<span aria-current='page' class='page-numbers current'>2</span>"
           f"<a class='page-numbers' href='{POST}comment-page-3/'>3</a>"
           f"<a class='next page-numbers' href='{POST}comment-page-3/'>&raquo;</a>")
    assert own_comment_page(_page(nav), POST) == POST + "comment-page-2/"


def test_nothing_where_the_pagination_says_nothing_or_contradicts_itself():
    assert own_comment_page(_page(f"<a href='{POST}comment-page-2/'>More comments</a>"), POST) is None
    both = (f"<div class='nav-next'><a href='{POST}comment-page-2/'>Newer</a></div>"
            f"<div class='nav-previous'><a href='{POST}comment-page-4/'>Older</a></div>")
    assert own_comment_page(_page(both), POST) is None
    assert own_comment_page(_page(f"<div class='nav-previous'><a href='{POST}comment-page-0/'>x</a></div>"), POST) \
        == POST + "comment-page-1/"
    assert own_comment_page(_page(f"<div class='nav-next'><a href='{POST}comment-page-1/'>x</a></div>"), POST) is None
    assert own_comment_page(_page("<a class='next' href='/page/2/'>Older posts</a>"), POST) is None
    assert own_comment_page(None, POST) is None
