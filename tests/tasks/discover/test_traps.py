"""tasks.discover.traps: which URLs are crawler traps (the query-variant count is the state's)."""
from __future__ import annotations

import pytest

from tasks.discover.traps import TrapLimits, capped, family, family_pattern, trap_reason, variant_key

O = "http://blog.example"


@pytest.mark.parametrize("url", [
    O + "/", O + "/2014/03/09/a-post/", O + "/category/travel/page/2/", O + "/feeds/123/comments/default",
    O + "/?p=123", O + "/2014/03/03/", O + "/search/label/x?updated-max=2014-03-09T10:00:00Z&max-results=7",
    O + "/?cat[]=1&cat[]=2&cat[]=3",
])
def test_ordinary_urls_pass(url):
    assert trap_reason(url) is None


@pytest.mark.parametrize("url,why", [
    (O + "/" + "a" * 3000, "longer"),
    (O + "".join(f"/d{i}" for i in range(17)) + "/", "deeper"),
    (O + "/x/x/x/", "repeats the segment"),
    (O + "/blog/blog/post/", "back to back"),
    (O + "/en/blog/en/blog/", "run of segments"),
    (O + "/calendar/2014/calendar/2014/post/", "run of segments"),
    (O + "/s/?" + "&".join(f"a{i}=1" for i in range(30)), "more than 24 parameters"),
    (O + "/s/?q=a&q=a&q=a&q=a", "repeats the parameter 'q'"),
])
def test_traps_are_named(url, why):
    assert why in (trap_reason(url) or "")


def test_limits_are_parameters():
    deep = O + "".join(f"/d{i}" for i in range(5)) + "/"
    assert trap_reason(deep) is None and trap_reason(deep, TrapLimits(max_depth=4))


def test_variant_key_is_the_path_of_a_query():
    assert variant_key(O + "/cal/") is None
    assert variant_key(O + "/cal/?m=1") == variant_key(O + "/cal/?m=2") != variant_key(O + "/list/?m=1")


@pytest.mark.parametrize("url,home,fam", [
    (O + "/calendar/2031/07/", O + "/", "calendar"),
    (O + "/calendar/9/9/8/", O + "/", "calendar"),
    (O + "/2014/03/", O + "/", "N"),
    (O + "/page-12/", O + "/", "page-N"),
    (O + "/?page=3", O + "/", ""),
    (O + "/", O + "/", ""),
    (O + "/blog/calendar/5/", O + "/blog/", "calendar"),
    (O + "/blog/calendar/5/", O + "/blog/index.html", "calendar"),
    (O + "/shop/5/", O + "/blog/", "/shop"),
])
def test_family_is_the_first_segment_under_the_home(url, home, fam):
    assert family(url, home) == fam


def test_family_pattern_names_the_paths():
    assert family_pattern(O + "/blog/", "calendar") == "/blog/calendar/*"
    assert family_pattern(O + "/", "") == "/?*"
    assert family_pattern(O + "/blog/", "/shop") == "/shop/*"


def test_links_of_a_page_are_capped_posts_first():
    posts = [f"{O}/p/{i}/" for i in range(5)]
    others = [f"{O}/o/{i}/" for i in range(10)] + [O + "/o/0/"]
    assert capped(posts, others, TrapLimits(max_links=20)) == (posts, others[:10], 0)
    assert capped(posts, others, TrapLimits(max_links=8)) == (posts, others[:3], 7)
    assert capped(posts, others, TrapLimits(max_links=3)) == (posts[:3], [], 12)
