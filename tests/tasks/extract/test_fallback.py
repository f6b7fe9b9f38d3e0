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
