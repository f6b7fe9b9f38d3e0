"""tasks.fetch.browser: real headless Chromium against pages served on loopback, and the pure
--js auto decisions."""
from __future__ import annotations

import json
import os
import urllib.parse

import pytest

from tasks.fetch.browser import BrowserPool, RenderError, RenderTimeout
from tasks.fetch.js_need import has_script_comments, needs_js, script_comment_widgets
from tests.httpd import LoopbackServer, Reply

CHROMIUM, CHROMEDRIVER = "/usr/bin/chromium", "/usr/bin/chromedriver"
_missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not os.path.exists(p)]
browser = [pytest.mark.browser,
           pytest.mark.skipif(bool(_missing), reason=f"headless browser tests need {', '.join(_missing)}")]

POST_HTML = ("<h2>Sourdough at altitude</h2><p>Baking bread at two thousand metres changes everything: "
             "water boils early, dough rises fast and the crust sets before the crumb is done.</p>"
             "<p>I lowered the oven by fifteen degrees and cut the proofing time by a third.</p>")
COMMENTS = [{"author": f"Reader {i}", "text": f"Comment number {i} about proofing baskets and crumb {i * 7}."}
            for i in range(11)]
PER_PAGE = 3

JS_POST = """<!DOCTYPE html><html><head><title>Sourdough at altitude</title></head><body>
<header><h1>Flour notes</h1></header><main id="post">Loading…</main>
<script>
fetch('/api/post.json').then(r => r.json()).then(d => { document.getElementById('post').innerHTML = d.html; });
</script></body></html>"""

STATIC_POST = f"""<!DOCTYPE html><html><head><title>Sourdough at altitude</title></head><body>
<header><h1>Flour notes</h1></header><main id="post">{POST_HTML}</main></body></html>"""

COMMENTS_PAGE = """<!DOCTYPE html><html><head><title>Comments</title></head><body>
<article><p>A short post.</p></article>
<section id="comments"><ol class="comment-list"></ol>
<button class="load-more" type="button">Load more comments</button></section>
<script>
let next = 0;
const btn = document.querySelector('button.load-more');
function more() {
  btn.disabled = true;
  fetch('/api/comments?from=' + next).then(r => r.json()).then(d => {
    for (const c of d.comments) {
      const li = document.createElement('li');
      li.className = 'comment';
      li.innerHTML = '<b class="author"></b> <p class="text"></p>';
      li.querySelector('.author').textContent = c.author;
      li.querySelector('.text').textContent = c.text;
      document.querySelector('ol.comment-list').appendChild(li);
    }
    next = d.next;
    btn.disabled = false;
    if (d.next === null) btn.style.display = 'none';
  });
}
btn.addEventListener('click', more);
more();
</script></body></html>"""

SELF_READING = """<!DOCTYPE html><html><head><title>Sourdough at altitude</title></head><body>
<main id="post">{text}</main><p id="again">not yet</p>
<script>
fetch(location.href).then(r => r.text()).then(t => {{
  document.getElementById('again').textContent = t.includes('as read') ? 'the copy again' : 'the server again';
}});
</script></body></html>"""

FRAMED = """<!DOCTYPE html><html><body><p>Post with an embedded comment service.</p>
<iframe id="dsq-app1" src="/embed/comments/?t=post-1" width="600" height="400"></iframe></body></html>"""

HANG = "<!DOCTYPE html><html><body><p>before</p><script>while (true) {}</script></body></html>"


def routes(req):
    path, query = req.split.path, urllib.parse.parse_qs(req.split.query)
    if path == "/js-post":
        return Reply(body=JS_POST)
    if path == "/self-reading":  # a page whose own script asks for it again (a widget reading its page)
        return Reply(body=SELF_READING.format(text="as served"))
    if path == "/static-post":
        return Reply(body=STATIC_POST)
    if path == "/api/post.json":
        # slower than the quiet window: only the in-flight request count keeps the wait going
        return Reply(body=json.dumps({"html": POST_HTML}), content_type="application/json", delay=0.6)
    if path in ("/comments", "/embed/comments/"):
        return Reply(body=COMMENTS_PAGE)
    if path == "/api/comments":
        start = int(query.get("from", ["0"])[0])
        chunk = COMMENTS[start:start + PER_PAGE]
        nxt = start + PER_PAGE if start + PER_PAGE < len(COMMENTS) else None
        return Reply(body=json.dumps({"comments": chunk, "next": nxt}), content_type="application/json",
                     delay=0.1)
    if path == "/pictured":
        return Reply(body=JS_POST.replace("<main", '<img src="/pic.png" alt="a loaf"><main')
                     .replace("</head>", '<link rel="stylesheet" href="/look.css"></head>'))
    if path == "/look.css":
        return Reply(body="main { color: brown }", content_type="text/css")
    if path == "/pic.png":
        return Reply(body=b"\x89PNG\r\n\x1a\n", content_type="image/png")
    if path == "/framed":
        return Reply(body=FRAMED)
    if path == "/hang":
        return Reply(body=HANG)
    if path.startswith("/page/"):
        return Reply(body=f"<html><body><p>page {path}</p></body></html>")
    return Reply(404, "not found")


@pytest.fixture(scope="module")
def site():
    with LoopbackServer(routes) as srv:
        yield srv


@pytest.fixture(scope="module")
def pool():
    if _missing:
        pytest.skip(f"headless browser tests need {', '.join(_missing)}")
    p = BrowserPool(size=1, max_pages=50, page_load_timeout=4, script_timeout=4, remote_url="")
    yield p
    p.close()


def comment_texts(html: str) -> list[str]:
    from tasks.fetch.html import node_text, parse_html

    return [node_text(n) for n in parse_html(html).xpath("//li[@class='comment']/p")]


# --------------------------------------------------------------------------- browser

@pytest.mark.usefixtures("site")
class TestRender:
    pytestmark = browser

    def test_post_rendered_from_json_endpoint(self, pool, site):
        out = pool.render(site.url + "js-post")
        assert out["url"] == site.url + "js-post"
        assert out["status"] == 200
        assert "two thousand metres" in out["html"] and "Loading…" not in out["html"]
        assert out["clicks"] == 0 and out["elapsed"] > 0.5  # it waited for the slow request
        assert site.hits["/api/post.json"] >= 1

    def test_a_page_the_crawler_read_is_given_to_the_browser_not_fetched_again(self, pool, site):
        """The page's own request is answered from the crawler's copy; its scripts still run
        and fetch what they need from the blog."""
        before = site.hits["/js-post"], site.hits["/api/post.json"]
        out = pool.render(site.url + "js-post", document=JS_POST.replace("Flour notes", "Flour notes, as read"))
        assert "two thousand metres" in out["html"] and "Flour notes, as read" in out["html"]
        assert site.hits["/js-post"] == before[0]  # not asked of the blog again
        assert site.hits["/api/post.json"] == before[1] + 1
        assert all(r["url"] != site.url + "js-post" for r in out["resources"])  # in the WARC already
        out = pool.render(site.url + "js-post")  # given once: the next render asks the blog
        assert site.hits["/js-post"] == before[0] + 1 and "Flour notes, as read" not in out["html"]

    def test_a_page_asking_for_itself_while_it_renders_gets_the_crawlers_copy(self, pool, site):
        """A script of the page asking for the page's own URL again is answered from the
        crawler's copy too, while that render lasts: the blog is asked nothing more."""
        before = site.hits["/self-reading"]
        out = pool.render(site.url + "self-reading", document=SELF_READING.format(text="as read"))
        assert "the copy again" in out["html"], out["html"]
        assert site.hits["/self-reading"] == before

    def test_a_render_without_pictures_runs_the_scripts_and_fetches_no_image_or_style(self, pool, site):
        out = pool.render(site.url + "pictured", pictures=False)
        assert "two thousand metres" in out["html"]
        assert site.hits["/pic.png"] == 0 and site.hits["/look.css"] == 0
        pool.render(site.url + "pictured")
        assert site.hits["/pic.png"] == 1 and site.hits["/look.css"] == 1  # the next render fetches them again

    def test_load_more_until_exhausted(self, pool, site):
        out = pool.render(site.url + "comments")
        texts = comment_texts(out["html"])
        assert texts == [c["text"] for c in COMMENTS]
        pages = -(-len(COMMENTS) // PER_PAGE)
        assert out["clicks"] == pages - 1  # the first page came with the page itself

    def test_max_clicks_bounds_the_clicking(self, pool, site):
        out = pool.render(site.url + "comments", max_clicks=1)
        assert out["clicks"] == 1
        assert len(comment_texts(out["html"])) == 2 * PER_PAGE

    def test_comment_iframe_is_inlined_with_its_load_more(self, pool, site):
        out = pool.render(site.url + "framed", comment_frames=("/embed/comments/",))
        assert comment_texts(out["html"]) == [c["text"] for c in COMMENTS]
        assert "data-bh-frame-src" in out["html"]

    def test_hung_script_times_out_and_pool_recovers(self, pool, site):
        # a live session first: the module's pool is fresh where this test runs first on its
        # xdist worker (2 starts: the hang's own, then the replacement), else it has one (1)
        pool.render(site.url + "page/warm")
        before = pool.started
        with pytest.raises(RenderTimeout, match=r"timeout.*hang.*did not finish within the 4s load"):
            pool.render(site.url + "hang")
        out = pool.render(site.url + "static-post")
        assert "two thousand metres" in out["html"]
        assert pool.started == before + 1  # the wedged session was replaced

    def test_browser_crash_is_retried_on_a_fresh_session(self, pool, site):
        import psutil

        first = pool.render(site.url + "page/a")
        pids = pool.browser_pids()
        assert len(pids) >= 2  # chromedriver and chromium at least
        for pid in pids[1:]:  # kill the browser, leave its driver
            try:
                psutil.Process(pid).kill()
            except psutil.NoSuchProcess:
                pass
        out = pool.render(site.url + "page/b")
        assert "page /page/b" in out["html"]
        assert out["session"] != first["session"]
        assert not any(psutil.pid_exists(p) and psutil.Process(p).status() != psutil.STATUS_ZOMBIE
                       for p in pids)

    def test_unreachable_url_is_a_network_error(self, pool):
        from tests.httpd import free_port

        with pytest.raises(RenderError) as err:
            pool.render(f"http://127.0.0.1:{free_port()}/nothing")
        assert err.value.kind == "network"

    def test_needs_js_on_rendered_pages(self, pool, site):
        entry = {"content_html": POST_HTML}
        js = pool.render(site.url + "js-post")["html"]
        static = pool.render(site.url + "static-post")["html"]
        assert needs_js(JS_POST, entry, js) is True
        assert needs_js(STATIC_POST, entry, static) is False


@pytest.mark.browser
@pytest.mark.skipif(bool(_missing), reason=f"headless browser tests need {', '.join(_missing)}")
def test_sessions_recycled_after_max_pages(site):
    import psutil

    with BrowserPool(size=1, max_pages=2, page_load_timeout=4, script_timeout=4, remote_url="") as p:
        ids = [p.render(site.url + f"page/{i}")["session"] for i in range(3)]
        assert ids[0] == ids[1] != ids[2]
        assert p.started == 2
        live = p.browser_pids()
    assert not any(psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
                   for pid in live)  # close() leaves no browser behind


@pytest.mark.browser
@pytest.mark.skipif(bool(_missing), reason=f"headless browser tests need {', '.join(_missing)}")
def test_a_session_does_not_grow_a_renderer_per_page(site):
    """The pages a session has rendered leave no renderer behind (the back-forward cache kept
    each one alive: 20-25 MB a page until the session was recycled)."""
    import psutil

    def alive(p):
        return [x for x in p.browser_pids() if psutil.pid_exists(x)
                and psutil.Process(x).status() != psutil.STATUS_ZOMBIE]

    with BrowserPool(size=1, max_pages=50, page_load_timeout=4, script_timeout=4, remote_url="") as p:
        counts = []
        for i in range(6):
            p.render(site.url + f"page/{i}")
            counts.append(len(alive(p)))
        assert p.started == 1
    assert counts[-1] <= counts[1], counts


# --------------------------------------------------------------------------- pure decisions

def test_needs_js_without_a_rendering():
    entry = {"summary_html": "<p>Baking bread at two thousand metres changes everything: water boils "
                             "early, dough rises fast [&hellip;]</p>"}
    assert needs_js(JS_POST, entry) is True  # worth rendering
    assert needs_js(STATIC_POST, entry) is False
    assert needs_js(STATIC_POST, {}) is False  # nothing to judge by


def test_needs_js_ignores_text_hidden_in_scripts():
    inline = JS_POST.replace("<script>", f"<script>var post = {json.dumps(POST_HTML)};")
    assert needs_js(inline, {"content_html": POST_HTML}) is True


def test_needs_js_false_when_rendering_does_not_help():
    entry = {"content_html": POST_HTML}
    assert needs_js(JS_POST, entry, JS_POST) is False


DISQUS = """<div id="disqus_thread"></div><script>var disqus_shortname = 'korben';
(function() { var d = document.createElement('script'); d.src = '//' + disqus_shortname + '.disqus.com/embed.js';
(document.body).appendChild(d); })();</script>"""
FACEBOOK = '<div class="fb-comments" data-href="http://example.org/p/1" data-numposts="5"></div>'
DATA_SRC = '<section class="comments" data-comments-src="/api/comments?post=1"></section>'
LOAD_MORE = '<div id="comments"><ol><li>first</li></ol><button class="load-more">Load more</button></div>'
WORDPRESS = """<div id="comments" class="comments-area"><h2>3 thoughts on "Post"</h2><ol class="comment-list">
<li class="comment"><div class="comment-body"><p>Plain HTML comment. I use Disqus elsewhere.</p></div></li></ol>
</div><nav><a class="load-more" href="/page/2">Load more posts</a></nav>"""


@pytest.mark.parametrize("html,name", [(DISQUS, "disqus"), (FACEBOOK, "facebook"), (DATA_SRC, "data-comments"),
                                       (LOAD_MORE, "load-more")])
def test_script_comments_detected(html, name):
    page = f"<html><body><article><p>Post.</p></article>{html}</body></html>"
    assert has_script_comments(page)
    assert name in script_comment_widgets(page)
    assert has_script_comments(page.encode("utf-8"))


def test_plain_html_comments_are_not_script_comments():
    assert not has_script_comments(f"<html><body>{WORDPRESS}</body></html>")
    assert not has_script_comments(STATIC_POST)
    assert not has_script_comments("")


TESTDATA = "/work/shared/blogforever-testdata"


def test_real_pages_of_2013():
    disqus = os.path.join(TESTDATA, "korben.info/viber-linux.html")
    blogger = os.path.join(TESTDATA, "keikolynn.com/2013/09/giveaway-win-chance-to-celebrate-fall.html")
    if not (os.path.isfile(disqus) and os.path.isfile(blogger)):
        pytest.skip("BlogForever test data not present")
    assert "disqus" in script_comment_widgets(open(disqus, "rb").read())
    assert not has_script_comments(open(blogger, "rb").read())  # Blogger serves its comments as HTML


SHELL = "/usr/lib/chromium/chromium-headless-shell"


@pytest.mark.browser
@pytest.mark.parametrize("binary", [CHROMIUM, SHELL])
def test_each_chromium_renders_and_leaves_no_profile_behind(site, binary):
    """The headless shell (preferred where installed: half the memory, issue 33) and the full
    browser both render a script-built page; neither leaves a profile when its session quits
    (the shell's is chromedriver's own: it opens no page in a profile made for it)."""
    if _missing or not os.path.exists(binary):
        pytest.skip(f"needs {binary} and chromedriver")
    from tasks.fetch.browser import headless_shell
    assert headless_shell(SHELL) and not headless_shell(CHROMIUM)
    with BrowserPool(size=1, max_pages=50, page_load_timeout=4, script_timeout=4, remote_url="", binary=binary) as p:
        assert "two thousand metres" in p.render(site.url + "js-post")["html"]
        profiles = [s.profile for s in p._live]
    assert len(profiles) == 1
    assert profiles == [None] if binary == SHELL else not os.path.exists(profiles[0])
