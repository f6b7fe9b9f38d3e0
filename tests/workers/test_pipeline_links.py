"""A read page's links as the pipeline splits them (workers/pipeline.py `_links`)."""
from __future__ import annotations

from tasks.discover.urls import learn_post_pattern
from tasks.fetch.page import Page
from workers import pipeline

HOME = "http://links-test.example/"


def test_a_numbered_page_of_a_listing_is_no_post_link_though_the_pattern_takes_it():
    """Pelican's /index2.html is in a /slug.html pattern; as a post link its listing would be
    judged as a post (and an update crawl would not read the home's listing in page order)."""
    posts = [f"{HOME}{s}.html" for s in ("asyncio-leak", "c-api-dict", "pep-741", "unicode-writer")]
    pattern = learn_post_pattern(posts)
    html = "".join(f'<a href="{u}">p</a>' for u in posts[:2]) + f'<a href="{HOME}index2.html">2</a>'
    page = Page.from_cached({"url": HOME, "html": f"<html><body>{html}</body></html>"})
    found, others = pipeline._links(None, "c", page, {"blog": {"home": HOME, "pattern": pattern}, "patterns": {}})
    assert found == posts[:2]
    assert f"{HOME}index2.html" in others


def test_a_listing_s_next_page_named_only_in_its_head_is_followed():
    """Jekyll's pagination: `<link rel="next" href="/page2/">` and no anchor to it."""
    html = (f'<html><head><link rel="next" href="{HOME}page2/"><link rel="prev" href="http://elsewhere.example/p/">'
            f'</head><body><a href="{HOME}a-post.html">p</a></body></html>')
    page = Page.from_cached({"url": HOME, "html": html})
    _, others = pipeline._links(None, "c", page, {"blog": {"home": HOME, "pattern": None}, "patterns": {}})
    assert others == [f"{HOME}a-post.html", f"{HOME}page2/"]
