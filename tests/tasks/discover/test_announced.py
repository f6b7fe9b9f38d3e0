"""The post count a blog's archive widget announces, over the farm's themes and languages."""
from __future__ import annotations

import pytest

from tasks.discover.announced import archive_widget_total
from tasks.fetch.html import parse_html
from tests.farm.blogger import Blogger
from tests.farm.wordpress import WordPress


@pytest.mark.parametrize("lang", ["en", "fr", "de"])
@pytest.mark.parametrize("cls,options", [(WordPress, {"archive_counts": True}), (Blogger, {})])
def test_widget_total_is_the_blogs_post_count(cls, options, lang):
    blog = cls(seed=3, n_posts=37, lang=lang, **options)
    home = blog.render("/", "http://127.0.0.1:1").body
    assert archive_widget_total(parse_html(home, "http://127.0.0.1:1/")) == 37


def test_no_counts_no_total():
    blog = WordPress(seed=3, n_posts=20)
    assert archive_widget_total(parse_html(blog.render("/", "http://127.0.0.1:1").body, "http://127.0.0.1:1/")) is None


@pytest.mark.parametrize("html,total", [
    # a post link with its comment count is not an archive
    ("<ul><li><a href='/2012/03/a-post/'>A post</a> (7)</li></ul>", None),
    ("<ul><li><a href='/?m=201203'>March 2012</a> (4)</li><li><a href='/?m=201202'>Feb</a> (2)</li></ul>", 6),
    ("<ul><li><a href='/archive/2011/'>2011 (9)</a></li><li><a href='/archive/2012/'>2012 (3)</a></li></ul>", 12),
    # years and months in one widget: months only, so no post is counted twice
    ("<ul><li><a href='/2012/'>2012</a> (5)<ul><li><a href='/2012/02/'>Feb</a> (2)</li>"
     "<li><a href='/2012/01/'>Jan</a> (3)</li></ul></li></ul>", 5),
])
def test_widget_forms(html, total):
    assert archive_widget_total(parse_html(html, "http://b.test/")) == total
