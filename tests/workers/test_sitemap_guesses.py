"""The usual sitemap paths a blog's crawl found missing are not asked again by its update crawls
on the same Redis (workers/discover/sources.py, issue 35: a second update of a blog with no
sitemap asks its home page and feed only); a full crawl asks again."""
from __future__ import annotations

from tasks.discover import sitemaps as sm
from tests.conftest import _free_port
from workers.discover import sources


def test_missing_sitemap_guesses_are_left_by_the_next_update_crawl_not_by_a_full_one(rt):
    home = f"http://127.0.0.1:{_free_port()}/"  # nothing listens: no robots.txt, no home page cached
    first = rt.state.create_crawl(home, None, {"update": True})
    guesses = [u for u, guessed in sm.candidates(home, "", []) if guessed]
    assert len(guesses) >= 2
    for u in guesses:
        sources.note_missing(rt, first, u)
    update = rt.state.create_crawl(home, "2020-01-01", {"update": True})
    assert sources.seed(rt, update, home) == 0
    full = rt.state.create_crawl(home, None, {})
    assert sources.seed(rt, full, home) == 1  # the first usual path, the others after it
