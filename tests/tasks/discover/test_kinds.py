"""tasks.discover.kinds: what one URL is to a crawl, decided once (issue 24)."""
from __future__ import annotations

import dataclasses

import pytest

from tasks.discover.kinds import ALWAYS, HINTED, UrlKind, js_decision, render_need, url_kind
from tasks.discover.urls import learn_post_pattern

HOME = "https://blog.test/"
DATED = learn_post_pattern(["https://blog.test/2014/03/first-post/", "https://blog.test/2015/07/second-post/",
                            "https://blog.test/2016/01/third-one/"], [HOME])
ROOT_SLUG = r"^/[^/]+/$"  # a Ghost-like pattern: any page named by one slug, /blog/ too


@pytest.mark.parametrize("url,pattern,entry,want", [
    # (by_pattern, listing, below_post, post)
    ("https://blog.test/2014/03/first-post/", DATED, False, (True, False, False, True)),
    ("https://blog.test/2014/03/", DATED, False, (False, True, False, False)),  # a date archive
    ("https://blog.test/2014/03/first-post/attachment/pic/", DATED, False, (False, False, True, False)),
    ("https://blog.test/blog/", ROOT_SLUG, False, (True, True, False, False)),  # the pattern's, but a listing
    ("https://blog.test/blog/", ROOT_SLUG, True, (True, True, False, True)),  # the feed lists it: a post
    ("https://blog.test/about/", None, False, (False, False, False, False)),  # nothing learned yet
    ("https://blog.test/about/", None, True, (False, False, False, True)),
    (HOME, DATED, False, (False, True, False, False)),
])
def test_url_kind(url, pattern, entry, want):
    k = url_kind(url, HOME, pattern, entry)
    assert (k.by_pattern, k.listing, k.below_post, k.post) == want
    assert k.entry is entry
    assert k.never_post == (k.listing or k.below_post)


@pytest.mark.parametrize("js,url,entry,want", [
    ("all", "https://blog.test/tag/x/", False, ALWAYS),  # script-drawn content: every page, listings too
    ("posts", "https://blog.test/2014/03/first-post/", False, HINTED),
    ("posts", "https://blog.test/about/", True, HINTED),  # a feed entry outside the pattern
    ("posts", "https://blog.test/tag/x/", False, None),
    (False, "https://blog.test/2014/03/first-post/", True, None),
])
def test_render_need_of_a_kind(js, url, entry, want):
    assert url_kind(url, HOME, DATED, entry, js).render == want
    assert render_need(js, entry or url.startswith("https://blog.test/2014/")) == want


def test_js_decision_from_the_blog_hash_else_the_option():
    assert js_decision({"js": "posts"}, {"js": "auto"}) == "posts"
    assert js_decision({"js": False}, {"js": "always"}) is False  # decided: the option no longer counts
    assert js_decision({}, {"js": "always"}) == "all"
    assert js_decision({}, {"js": "auto"}) is False
    assert js_decision({}, {}) is False


def test_a_kind_is_a_value():
    k = url_kind("https://blog.test/2014/03/first-post/", HOME, DATED, False, "posts")
    assert k == UrlKind(by_pattern=True, render=HINTED)
    with pytest.raises(dataclasses.FrozenInstanceError):
        k.listing = True
