"""The page-level extractor: a post read with no rules (trafilatura and the page's own metadata)."""
from __future__ import annotations

import pytest

from tasks.extract.fallback import fallback_extract
from tests.conftest import score
from tests.farm import make_blog

O = "http://127.0.0.1:9"


@pytest.mark.parametrize("family", ["wordpress", "blogger", "static"])
def test_fallback_reads_farm_posts(family):
    blog = make_blog(family, 2, 12)
    records = []
    for p in blog.posts:
        got = fallback_extract(blog.render(p.path, O).body, O + p.path)
        records.append(dict(got, url=O + p.path, kind="post"))
    s = score(blog.truth, records)
    assert s["found"] == 100 and s["content_paper"] >= 90 and s["title_exact"] >= 90, s


def test_fallback_on_a_page_without_article_gives_no_content():
    got = fallback_extract("<html><body><nav><a href='/'>Home</a></nav></body></html>", O + "/x")
    assert got["content_text"] is None


def test_fallback_reads_no_post_from_binary_bytes():
    """Binary bytes decoded as text: the page-level extractor invents nothing."""
    import random

    from tasks.extract.fallback import fallback_extract

    rng = random.Random(3)
    noise = bytes(rng.randrange(256) for _ in range(20000)).decode("utf-8", errors="replace")
    got = fallback_extract("<html><body><article>" + noise + "</article></body></html>", "http://example.org/p/")
    assert not got["content_text"] and not got["title"]


def test_a_content_that_is_the_whole_page_is_told_from_a_post():
    """A one-line post: the page-level extractor finds no article and keeps the whole page (site
    name, byline, comment form, sidebar); a long post on a busy page is no whole page."""
    from tasks.extract.fallback import whole_page
    from tasks.fetch.html import node_text, parse_html

    side = "<aside>" + "".join(f"<p>Recent post number {i}</p>" for i in range(20)) + "</aside>"
    one = (f"<html><body><header>My Blog</header><h1>Short</h1><p>By Ann</p><article><p>One line.</p></article>"
           f"<form>Name Email Website Submit</form>{side}</body></html>")
    root = parse_html(one, O + "/p/")
    assert whole_page(node_text(root.find(".//body")), root, "Short")
    assert not whole_page("One line.", root, "Short")
    body = "<p>" + "A long paragraph of the post itself. " * 30 + "</p>"
    long = f"<html><body><h1>Long</h1><article>{body}</article>{side}{side}{side}</body></html>"
    root = parse_html(long, O + "/q/")
    assert not whole_page(node_text(root.find(".//article")), root, "Long")
