"""Two URLs serving one post give one record, under the URL the blog itself uses most
(workers/discover/posts.py `takes_over`, issue 30), on a real Redis."""
from __future__ import annotations

from workers.discover.posts import takes_over

PATTERN = r"^/[^/]+/[^/]+\.html$"  # broad: both spellings of a post fit it
HOME = "http://dup-scheme.example/"
POST = {"title": "A post", "content_text": "The text of a post, long enough to be a body of its own. " * 4}


def _crawl(rt, home: str) -> str:
    cid = rt.state.create_crawl(home, None, {})
    rt.state.set_state(cid, "running")
    return cid


def test_the_url_in_the_blogs_main_scheme_takes_a_post_over_from_a_copy(rt):
    cid = _crawl(rt, HOME)
    rt.state.r.sadd(rt.keys(cid).posts, *[f"{HOME}a/{n}-post-{n}.html" for n in range(1, 9)],
                    f"{HOME}permalink/Other.html")
    owner = f"{HOME}permalink/The-Post.html"
    result = {}
    assert takes_over(rt, cid, {"url": f"{HOME}a/20-The-Post.html", **POST},
                      owner, result, PATTERN)
    assert result == {"replaced": owner}
    # the other way round: the copy's scheme holds fewer posts, it stays a duplicate
    result = {}
    assert not takes_over(rt, cid, {"url": owner, **POST},
                          f"{HOME}a/20-The-Post.html", result, PATTERN)
    assert result == {"duplicate_of": f"{HOME}a/20-The-Post.html"}


def test_schemes_of_about_the_same_size_keep_the_first_url(rt):
    cid = _crawl(rt, "http://dup-scheme-2.example/")
    home = "http://dup-scheme-2.example/"
    rt.state.r.sadd(rt.keys(cid).posts, *[f"{home}a/{n}.html" for n in range(3)], *[f"{home}b/{n}.html" for n in range(2)])
    result = {}
    assert not takes_over(rt, cid, {"url": f"{home}a/9.html", **POST},
                          f"{home}b/9.html", result, PATTERN)


def test_a_pseudo_entrys_url_is_taken_over_by_the_main_scheme_and_noted_as_its_alias(rt):
    """Without a feed the entries are read off the blog's pages (pseudo): the copy a listing
    named (held-out blogaddict-de's /permalink/ spelling) holds no feed's word; the URL in the
    blog's main scheme takes the post over, and the copy is noted as its alias (a listing that
    names it lists the post). A feed's own URL is kept (a duplicate, noted too)."""
    home = "http://dup-scheme-3.example/"
    cid = _crawl(rt, home)
    rt.state.r.sadd(rt.keys(cid).posts, *[f"{home}a/{n}-post-{n}.html" for n in range(1, 9)])
    copy, post = f"{home}permalink/The-Post.html", f"{home}a/20-The-Post.html"
    rt.state.save_entries(cid, [{"url": copy, "title": "A post", "pseudo": True}])
    result = {}
    assert takes_over(rt, cid, {"url": post, **POST}, copy, result, PATTERN)
    assert result == {"replaced": copy} and rt.state.r.hget(rt.keys(cid).aliases, copy) == post
    fed = f"{home}permalink/Fed-Post.html"
    rt.state.save_entries(cid, [{"url": fed, "title": "Another"}])
    result = {}
    assert not takes_over(rt, cid, {"url": f"{home}a/21-Fed-Post.html", **POST}, fed, result, PATTERN)
    assert rt.state.r.hget(rt.keys(cid).aliases, f"{home}a/21-Fed-Post.html") == fed


def _sidebar(home: str, posts: list[str], listing: list[str]) -> str:
    """A page of the blog: its listing (the home page's) and a sidebar of recent entries."""
    items = "".join(f'<div class="entry"><h2 class="title"><a href="{u}">{u}</a></h2></div>' for u in listing)
    recent = "".join(f'<a href="{u}">{u}</a><br>' for u in posts)
    return (f'<html><body><table><tr><td id="content">{items}</td><td id="side"><div class="sideItem recent">'
            f'<h3>Recent entries</h3><div class="sideContent">{recent}</div></div></td></tr></table></body></html>')


def test_a_posts_sidebar_of_recent_entries_lists_what_the_home_pages_no_longer_does(rt):
    """Held-out blogaddict-de's a/55: a copy saved over months shows on each post the entries
    that were newest that day; an entry only those sidebars name is still listed by the blog.
    A post page's slot counts where the home page lists posts in the same place, and only
    where it names what the home page's does not (a live blog writes nothing)."""
    from tasks.fetch.page import Page
    from workers.discover.posts import _HOME, listed_beside

    home = "http://dup-sidebar.example/"
    cid = _crawl(rt, home)
    pattern = r"^/a/\d+-[^/]+\.html$"
    newest = [f"{home}a/{n}-post.html" for n in range(20, 14, -1)]
    older = [f"{home}a/{n}-post.html" for n in range(58, 52, -1)]
    rt.state.cache_page(cid, home, {"url": home, "html": _sidebar(home, newest, newest[:5])})
    _HOME.pop(cid, None)
    then = Page(url=older[1], final_url=older[1], html=_sidebar(home, older, []))
    assert listed_beside(rt, cid, home, then, pattern) == [older]
    now = Page(url=newest[1], final_url=newest[1], html=_sidebar(home, newest, []))
    assert listed_beside(rt, cid, home, now, pattern) is None
    # a slot the home page does not list posts in (a post's own links) is not noted
    other = Page(url=older[1], final_url=older[1],
                 html=f"<html><body><ul class='refs'>{''.join(f'<li><a href={u!r}>x</a></li>' for u in older)}</ul></body></html>")
    assert listed_beside(rt, cid, home, other, pattern) is None


def test_posts_naming_addresses_the_blog_does_not_serve_keep_the_urls_read(crawl, state):
    """A copy of a blog moved to other paths keeps its pages' canonicals naming the old ones (a
    new blog's mirror at /posts/...html named /assets/2006/10/15/slug/, all 404): the records
    went under addresses nobody can fetch. Asked once a crawl (by the first posts read at once):
    the records go under the URLs read, and the report says why."""
    from tests.farm import make_blog
    from tests.farm.server import FarmServer

    blog = make_blog("static", 31, 12, canonical_moved=("/posts/", "/posts/old-"))
    with FarmServer(blog) as site:
        info, records = crawl(site.url, js="never")
        asked = [t for t in site.hits if t.startswith("/posts/old-")]
    assert info["state"] == "done", info
    assert {r["url"] for r in records if r.get("kind", "post") == "post"} == {site.origin + p.path for p in blog.posts}
    assert 0 < len(asked) <= 8  # by the first posts read (eight pages are in flight at once), then known
    assert any(e["kind"] == "canonical" for e in state.errors(info["crawl_id"]))
