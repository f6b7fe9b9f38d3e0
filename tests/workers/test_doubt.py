"""Issue 30: a post recognised by its template alone stays in the crawl's output only if a
post listing lists it, decided when the crawl finishes (workers/lua.py, `settle_doubt`)."""
from __future__ import annotations

from tests.workers.own_state import own_state, running_crawl
from workers.state import Keys

HOME = "https://blog.test/"


def _crawl_with_doubt(st):
    cid = running_crawl(st, HOME)
    k = Keys(cid)
    posts = [HOME + "a-post.html", HOME + "projects/tool", HOME + "other-section/listed-post"]
    st.r.sadd(k.posts, *posts)
    st.r.sadd(k.doubtful, posts[1], posts[2])  # both read as posts by their template alone
    st.r.sadd(k.listed, posts[2])  # a listing lists this one
    return cid, k, posts


def test_an_unlisted_template_post_leaves_the_output_when_the_crawl_finishes(redis_server):
    st = own_state(redis_server)
    cid, k, posts = _crawl_with_doubt(st)
    assert st.maybe_finish(cid, 100)
    assert st.r.smembers(k.posts) == {posts[0], posts[2]}
    why = [e for e in st.errors(cid) if e["kind"] == "not_post"]
    assert [e["url"] for e in why] == [posts[1]] and "listing" in why[0]["message"]


def test_nothing_leaves_while_the_crawl_still_runs(redis_server):
    st = own_state(redis_server)
    cid, k, posts = _crawl_with_doubt(st)
    st.enqueue(cid, {HOME + "page2/": 1.0})  # a listing still to read may list it
    assert not st.maybe_finish(cid, 100)
    assert st.r.smembers(k.posts) == set(posts)
    assert st.hand_out(cid, 4, 100) == ([HOME + "page2/"], False)
    assert st.r.smembers(k.posts) == set(posts)
