"""Comments of blogs without comment feeds, through real workers: the farm's `threaded` family
(comments only in the page, threaded, three themes, several languages, with and without
dates) crawled with the default --js auto. The harness's scorer judges author and text;
the dates, replies and pingbacks are checked against the farm's truth."""
from __future__ import annotations

import datetime as dt

import pytest

from tests.conftest import score
from tests.farm import make_blog
from tests.farm.server import FarmServer
from tasks.text.similarity import dice, normalize_text


def _same(a: str, b: str) -> bool:
    return dice(normalize_text(a), normalize_text(b)) > 0.8


@pytest.mark.slow
@pytest.mark.parametrize("theme,lang,dates", [("list", "en", True), ("divs", "fr", True), ("articles", "de", False)])
def test_markup_only_comments_of_every_post(crawl, theme, lang, dates):
    blog = make_blog("threaded", seed=5, n_posts=16, theme=theme, lang=lang, comment_dates=dates)
    with FarmServer(blog) as site:
        info, records = crawl(site.url)
    assert info["state"] == "done", info
    truth = blog.truth
    assert sum(len(t["comments"]) for t in truth) > 30
    assert score(truth, records)["comments"] >= 95
    by_url = {r["url"]: r for r in records}
    dated = replies = linkbacks = 0
    for p, t in zip(blog.posts, truth):
        got = by_url[site.origin + p.path]["comments"]
        assert len(got) == len(t["comments"]), p.path
        # the page shows threads (replies under their comment), the truth is oldest first
        pair = [next(c for c in got if _same(c["content_text"], g["content_text"])) for g in t["comments"]]
        ids = [c["id"] for c in pair]
        for c, g in zip(pair, t["comments"]):
            if dates:  # the day shown (the zone only when the page prints it)
                dated += c["published"] is not None and c["published"][:10] == g["published"][:10]
            else:
                assert c["published"] is None  # never the post's date
            want = None if g["parent"] is None else ids[g["parent"]]
            assert c["parent"] == want, (p.path, c["author"])
            replies += want is not None
            assert c.get("kind", "comment") == g["kind"]
            linkbacks += g["kind"] != "comment"
    assert replies > 3
    if dates:
        assert dated >= 0.95 * sum(len(t["comments"]) for t in truth)
