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


def test_nothing_leaves_where_a_listing_went_unread(redis_server):
    st = own_state(redis_server)
    cid, k, posts = _crawl_with_doubt(st)
    st.r.hset(k.cut, "/page/*", 5)  # a part of the site cut as a trap: its listings unread
    assert st.maybe_finish(cid, 100)
    assert st.r.smembers(k.posts) == set(posts)


def test_nothing_leaves_while_the_crawl_still_runs(redis_server):
    st = own_state(redis_server)
    cid, k, posts = _crawl_with_doubt(st)
    st.enqueue(cid, {HOME + "page2/": 1.0})  # a listing still to read may list it
    assert not st.maybe_finish(cid, 100)
    assert st.r.smembers(k.posts) == set(posts)
    assert st.hand_out(cid, 4, 100) == ([HOME + "page2/"], False)
    assert st.r.smembers(k.posts) == set(posts)


_LISTING = """<html><body><nav><a href="/about/">About</a> <a href="/projects/tool">Tool</a></nav>
<ul>
<li class="item"><a href="/2014/03/first-post.html">First post of the year</a></li>
<li class="item"><a href="/2014/04/second-post.html">A second post here</a></li>
<li class="item"><a href="/2015/01/third-post.html">The third post</a></li>
<li class="item"><a href="/old-scheme/legacy-post">An older post, older scheme</a></li>
</ul></body></html>"""
PATTERN = r"^/\d{4}/\d{2}/[^/]+\.html$"


def _runtime(redis_server):
    from workers.runtime import Runtime
    from workers.settings import settings

    rt = Runtime(settings())
    rt.state = own_state(redis_server)  # (a cached property: set before anything reads it)
    return rt


def test_a_listing_notes_what_it_lists_beyond_the_pattern_and_a_template_post_is_doubted(redis_server):
    from tasks.fetch.page import Page
    from workers.discover.posts import note_listing

    rt = _runtime(redis_server)
    cid = running_crawl(rt.state, HOME)
    k = Keys(cid)
    note_listing(rt, cid, Page(HOME, HOME, _LISTING), PATTERN, post=False, doubtful=None)
    # the menu's links are no listing; a listed URL with and without its trailing slash (a record's canonical)
    assert rt.state.r.smembers(k.listed) == {HOME + "old-scheme/legacy-post", HOME + "old-scheme/legacy-post/"}
    note_listing(rt, cid, Page(HOME + "projects/tool", HOME + "projects/tool", "<html></html>"), PATTERN, post=True,
                 doubtful=HOME + "projects/tool")
    assert rt.state.r.smembers(k.doubtful) == {HOME + "projects/tool"}
    # a template post whose record URL the pattern takes (reached by another URL) is no doubt
    note_listing(rt, cid, Page(HOME, HOME, "<html></html>"), PATTERN, post=True, doubtful=HOME + "2016/05/x.html")
    assert rt.state.r.smembers(k.doubtful) == {HOME + "projects/tool"}
    assert rt.state.maybe_finish(cid, 100) and rt.state.r.sismember(k.posts, HOME + "projects/tool") == 0


def test_a_listing_of_the_patterns_posts_only_writes_nothing(redis_server):
    from tasks.fetch.page import Page
    from workers.discover.posts import note_listing

    rt = _runtime(redis_server)
    cid = running_crawl(rt.state, HOME)
    listing = _LISTING.replace('<li class="item"><a href="/old-scheme/legacy-post">An older post, older scheme</a></li>', "")
    note_listing(rt, cid, Page(HOME, HOME, listing), PATTERN, post=False, doubtful=None)
    assert not rt.state.r.exists(Keys(cid).listed)
