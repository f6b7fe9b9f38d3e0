"""tasks.discover.controls: links repeated under each item as its control are no pages to read."""
from __future__ import annotations

from lxml import html

from tasks.discover.canonical import is_listing
from tasks.discover.controls import item_controls

B = "https://b.test/"


def _root(body: str):
    return html.fromstring(f"<html><body>{body}</body></html>")


def test_a_reply_link_under_every_comment_is_a_control():
    comments = "".join(f"<div class='comment'><h3><a href='/post-1#comment-{i}'>Subject {i}</a></h3><p>text {i}</p>"
                       f"<a href='/comment/reply/1/{i}'>Reply</a></div>" for i in range(5))
    assert item_controls(_root(comments), B + "post-1") == {f"{B}comment/reply/1/{i}" for i in range(5)}


def test_a_comment_count_opening_each_posts_comments_page_is_a_control():
    """Movable Type's listing: "Comments (3)" under each post opens a page of its comments
    (mt-comments.cgi?entry_id=N), the counts differing from post to post."""
    listing = "".join(f"<h2><a href='/archives/{i:06d}.html'>Post {i}</a></h2><p>...</p>"
                      f"<a href='/mt-comments.cgi?entry_id={i}'>Comments ({i % 4})</a>" for i in range(5))
    posts = lambda u: "/archives/" in u  # (the caller keeps the posts its pattern takes in, and listings)
    assert item_controls(_root(listing), B, posts) == {f"{B}mt-comments.cgi?entry_id={i}" for i in range(5)}


def test_read_more_links_archive_widgets_and_short_groups_are_pages():
    listing = "".join(f"<h2><a href='/post-{i}/'>Post {i}</a></h2><p>...</p><a href='/post-{i}/'>Read more</a>"
                      for i in range(5))
    assert item_controls(_root(listing), B) == set()  # each target named by its title too
    widget = "".join(f"<li>{y}<ul><li><a href='/{y}/07/'>July</a></li></ul></li>" for y in (2010, 2011, 2013))
    assert item_controls(_root(widget), B, lambda u: is_listing(u, B)) == set()
    assert item_controls(_root(widget), B) == {f"{B}{y}/07/" for y in (2010, 2011, 2013)}  # (the caller keeps listings)
    two = "".join(f"<a href='/comment/reply/1/{i}'>Reply</a>" for i in range(2))
    assert item_controls(_root(two), B) == set()
    mixed = "".join(f"<a href='/{p}/{i}'>Reply</a>" for i, p in enumerate(["a", "b/c", "d"]))
    assert item_controls(_root(mixed), B) == set()  # no one shape
    tags = "".join(f"<a href='/tag/{t}/'>{t}</a>" for t in ("bread", "oven", "flour", "salt"))
    assert item_controls(_root(tags), B) == set()
    numbered = "".join(f"<a href='/tag/t{i}/'>tag {i}</a>" for i in range(5))  # (numbers aside, one text)
    assert item_controls(_root(numbered), B, lambda u: is_listing(u, B)) == set()  # listings: the caller's
    pages = "".join(f"<a href='/?p={i}'>{i}</a>" for i in range(5))
    assert item_controls(_root(pages), B) == set()  # numbers alone: no control's anchor
    assert item_controls(None, B) == set()
