"""The crawl report's announced posts that gave no record, each with why (issue 30)."""
from __future__ import annotations

from tasks.archive.report import advice
from workers.archive.report import facts, not_found
from workers.state import Keys


def test_announced_posts_not_found_are_listed_with_why(state):
    home = "http://not-found.test/"
    cid = state.create_crawl(home, None, {})
    state.save_blog(cid, home=home, pattern=r"^/\d{4}/[^/]+/$")
    feed, failed, read, queued, never = (f"{home}2014/{n}/" for n in ("feed-post", "failed", "read", "queued", "never"))
    state.mark_sources(cid, [feed, failed, read, queued, never, f"{home}about/"], "sitemap")
    state.mark_sources(cid, [feed], "feed")  # (first finder kept: the sitemap)
    k, keys = state.r, Keys(cid)  # the crawl's sets as the traversal leaves them
    k.sadd(keys.seen, failed, read, queued)
    k.sadd(keys.done, failed, read)
    state.add_error(cid, failed, "http_status", "HTTP 404 Not Found")
    k.sadd(keys.posts, feed)
    got = not_found(state, cid, state.blog(cid), state.errors(cid))
    why = {x["url"]: x["why"] for x in got["examples"]}
    assert got["count"] == 4 and feed not in why and f"{home}about/" not in why  # /about/ is no post by the pattern
    assert why[failed] == "http_status: HTTP 404 Not Found"
    assert why[read] == "read, not taken for a post"
    assert why[queued].startswith("queued, never read")
    assert why[never] == "never queued"
    f = facts(state, cid)
    assert f["not_found"]["count"] == 4
    assert any("4 posts the blog announces" in line for line in advice(f))
