"""workers.fetch.rendering (and workers.extract.comments on rendered pages) with real headless Chromium,
real Redis and loopback sites: --js auto renders the JavaScript blog and never the static
one; a script-drawn post extracts like its static twin; comments behind "Load more"."""
from __future__ import annotations

import json
import os
import urllib.parse

import pytest

from tasks.extract.post import extract_post
from tasks.fetch.page import Page
from tasks.learn.fields import learn_page, reduce_rules
from tests.httpd import LoopbackServer, Reply
from workers.extract import comments
from workers.fetch import rendering
from workers.fetch.pages import html_page

_missing = [p for p in ("/usr/bin/chromium", "/usr/bin/chromedriver") if not os.path.exists(p)]
pytestmark = [pytest.mark.browser, pytest.mark.skipif(bool(_missing), reason=f"needs {_missing}")]

POSTS = {f"p{i}": {"title": f"Notes on the harbour lantern {i}",
                   "html": f"<p>Harbour lantern {i}: the ferry left the orchard at dawn, and the teapot sang "
                           f"while the violin played a meadow tune number {i}.</p><p>Then the marble station "
                           f"filled with pencils and village kitchens, garden {i * 3}.</p>",
                   "author": "Ada Writer", "published": f"2014-03-0{i + 1}T10:00:00+00:00"} for i in range(3)}
COMMENTS = [{"id": i, "author": f"Reader {i}", "published": f"2014-04-{i + 1:02d}T08:{i:02d}:00+00:00",
             "text": f"Comment {i}: proofing baskets and a crumb of {i * 7} grams, lantern {i}."} for i in range(8)]
PER_PAGE = 3

SHELL = """<!DOCTYPE html><html><head><title>Lantern blog</title></head><body><nav><a href="/">Home</a></nav>
<main><article id="app" data-src="/api/{slug}.json"><p class="loading">…</p></article></main>
<section id="comments" class="comments"><ol class="comment-list"></ol>
<button id="load-more-comments" class="load-more" type="button" hidden>Load more comments</button></section>
<script>
fetch(document.getElementById('app').dataset.src).then(r => r.json()).then(d => {
  document.getElementById('app').innerHTML = '<h1 class="entry-title">' + d.title + '</h1><span class="byline">' +
    d.author + '</span> <time datetime="' + d.published + '">' + d.published.slice(0, 10) + '</time>' +
    '<div class="entry-content">' + d.html + '</div>';
});
const btn = document.getElementById('load-more-comments');
let next = 0;
function more() {
  fetch('/api/comments?from=' + next).then(r => r.json()).then(d => {
    for (const c of d.comments) {
      const li = document.createElement('li');
      li.className = 'comment'; li.id = 'comment-' + c.id;
      li.innerHTML = '<span class="comment-author"></span> <time class="comment-date"></time><div class="comment-text"></div>';
      li.querySelector('.comment-author').textContent = c.author;
      li.querySelector('time').setAttribute('datetime', c.published);
      li.querySelector('time').textContent = c.published.slice(0, 10);
      li.querySelector('.comment-text').textContent = c.text;
      document.querySelector('ol.comment-list').appendChild(li);
    }
    next = d.next;
    btn.hidden = d.next === null;
  });
}
btn.addEventListener('click', more);
more();
</script></body></html>"""


def static_post(slug: str) -> str:
    d = POSTS[slug]
    return (f'<!DOCTYPE html><html><head><title>Lantern blog</title></head><body><nav><a href="/">Home</a></nav>'
            f'<main><article><h1 class="entry-title">{d["title"]}</h1><span class="byline">{d["author"]}</span> '
            f'<time datetime="{d["published"]}">{d["published"][:10]}</time><div class="entry-content">{d["html"]}'
            f'</div></article></main></body></html>')


def routes(req):
    path, query = req.split.path, urllib.parse.parse_qs(req.split.query)
    slug = path.strip("/").split("/")[-1].removesuffix(".json")
    if path.startswith("/js/") and slug in POSTS:
        return Reply(body=SHELL.replace("{slug}", slug))
    if path.startswith("/static/") and slug in POSTS:
        return Reply(body=static_post(slug))
    if path.startswith("/sign/") and slug in POSTS:  # a sign of script comments, and a script that adds none
        return Reply(body=static_post(slug).replace(
            "</main>", '</main><section><h2>Comments</h2><div id="thread-mount"></div></section>'
                       '<script src="/assets/nothing.js"></script>'))
    if path.startswith("/bare/") and slug in POSTS:  # a script draws the post into an empty <main>
        return Reply(body=SHELL.replace("{slug}", slug).replace(
            '<article id="app" data-src="/api/' + slug + '.json"><p class="loading">…</p></article>',
            '<article id="app" data-src="/api/' + slug + '.json"></article>'
            '<noscript>This blog needs JavaScript.</noscript>'))
    if path == "/assets/nothing.js":
        return Reply(body="window.done = true;", content_type="application/javascript")
    if path.startswith("/api/") and slug in POSTS:
        return Reply(body=json.dumps(POSTS[slug]), content_type="application/json", delay=0.3)
    if path == "/api/comments":
        start = int(query.get("from", ["0"])[0])
        nxt = start + PER_PAGE if start + PER_PAGE < len(COMMENTS) else None
        return Reply(body=json.dumps({"comments": COMMENTS[start:start + PER_PAGE], "next": nxt}),
                     content_type="application/json", delay=0.05)
    return Reply(404, "not found")


@pytest.fixture(scope="module")
def site():
    with LoopbackServer(routes) as srv:
        yield srv
    rendering.close_pool()


def entries(site, family):
    return [{"url": f"{site.url}{family}/{slug}", "title": d["title"], "content_html": d["html"],
             "authors": [d["author"]], "published": d["published"]} for slug, d in POSTS.items()]


def served(rt, url: str) -> Page:
    """The page at `url` as the traversal holds it before any rendering: fetched, through the HTML gate."""
    page = html_page(rt.downloader.get(url), url)
    assert page is not None, url
    return page


def crawl(rt, site, family, js):
    cid = rt.state.create_crawl(f"{site.url}{family}/", None, {"js": js})
    es = entries(site, family)
    rt.state.save_entries(cid, es)
    return cid, es


def test_auto_never_renders_a_static_blog(rt, site):
    rendering.close_pool()
    cid, es = crawl(rt, site, "static", "auto")
    assert rendering.decide(rt, cid, es) is False
    assert rt.state.blog(cid)["js"] is False
    page = served(rt, es[0]["url"])
    assert rendering.page(rt, cid, es[0]["url"], page) is page
    assert rendering._pool is None  # no browser was even started
    assert site.hits["/api/p0.json"] == 0


def test_a_browser_started_for_the_sample_is_quit_once_decided(rt, site):
    """Pages that show a sign of script comments (an empty comment mount and a script) make
    --js auto render its sample; rendering shows nothing more, so the crawl renders nothing
    and the browser is quit before decide returns: no session left, its processes gone."""
    import psutil

    rendering.close_pool()
    cid, es = crawl(rt, site, "sign", "auto")
    assert rendering.decide(rt, cid, es) is False
    assert site.hits["/assets/nothing.js"] >= 1  # the sample was rendered
    assert "rendering showed nothing more" in rt.state.blog(cid)["js_reason"]
    pool = rendering._pool
    assert pool.started >= 1 and pool.session_ids() == [] and pool.browser_pids() == []
    alive = [c for c in psutil.Process().children(recursive=True)
             if c.is_running() and c.status() != psutil.STATUS_ZOMBIE and "chrom" in c.name().lower()]
    assert alive == []


def test_an_update_crawl_keeps_the_decision_of_the_blogs_earlier_crawl(rt, site):
    """The blog's first crawl samples its pages (a sign of script comments: the sample is
    rendered); its update crawls keep that decision and render nothing to decide again (issue
    35); a full crawl decides afresh."""
    rendering.close_pool()
    cid, es = crawl(rt, site, "sign", "auto")
    assert rendering.decide(rt, cid, es) is False
    rendered = site.hits["/assets/nothing.js"]
    assert rendered >= 1
    update = rt.state.create_crawl(f"{site.url}sign/", None, {"js": "auto", "update": True})
    assert rendering.decide(rt, update, es) is False
    assert site.hits["/assets/nothing.js"] == rendered  # nothing rendered again
    assert rt.state.blog(update)["js_reason"].startswith(rendering.KEPT)
    again = rt.state.create_crawl(f"{site.url}sign/", None, {"js": "auto"})
    assert rendering.decide(rt, again, es) is False
    assert site.hits["/assets/nothing.js"] > rendered  # a full crawl samples again
    assert not rt.state.blog(again)["js_reason"].startswith(rendering.KEPT)


def test_entries_without_text_decide_by_the_pages_own_signs(rt, site):
    """No feed text to look for (no feed, or one without content): a page whose markup shows
    that a script draws it (an empty content container, a <noscript> asking for JavaScript)
    is rendered, and the blog renders when rendering multiplies its words; a static blog's
    pages show no sign, and no browser starts."""
    rendering.close_pool()
    cid = rt.state.create_crawl(f"{site.url}static/", None, {"js": "auto"})
    bare = [{"url": f"{site.url}static/{slug}"} for slug in POSTS]
    assert rendering.decide(rt, cid, bare) is False
    assert rendering._pool is None
    cid = rt.state.create_crawl(f"{site.url}bare/", None, {"js": "auto"})
    bare = [{"url": f"{site.url}bare/{slug}"} for slug in POSTS]
    assert rendering.decide(rt, cid, bare) is True
    blog = rt.state.blog(cid)
    assert blog["js"] == "all" and "JavaScript" in blog["js_reason"], blog["js_reason"]


def test_idle_sessions_are_quit_and_a_later_render_starts_afresh(site):
    from tasks.fetch.browser import BrowserPool
    from tests.conftest import wait_for

    with BrowserPool(allow_private=True, idle_timeout=1.0) as pool:
        assert "Harbour lantern 0" in pool.render(f"{site.url}static/p0")["html"]
        first = pool.session_ids()
        assert len(first) == 1
        wait_for(lambda: pool.session_ids() == [], 30, "the idle session to be quit")
        assert pool.browser_pids() == []
        assert "Harbour lantern 1" in pool.render(f"{site.url}static/p1")["html"]
        assert pool.session_ids() not in ([], first) and pool.started == 2
        assert pool.release_idle() == 1 and pool.session_ids() == []


def test_a_held_pool_renders_in_one_session_however_long_between_renders(site):
    """decide() holds the pool over its sample: the idle countdown (its callback called here as
    its timer would) quits nothing meanwhile, so the blog's assets are fetched once."""
    from tasks.fetch.browser import BrowserPool

    with BrowserPool(allow_private=True, idle_timeout=30.0) as pool:
        with pool.held():
            first = pool.render(f"{site.url}static/p0")["session"]
            pool._on_idle()  # the countdown ran out between two renders of the sample
            assert pool.render(f"{site.url}static/p1")["session"] == first and pool.started == 1
        pool._on_idle()  # held no more: the idle session is quit
        assert pool.session_ids() == []


def test_auto_renders_a_javascript_blog_and_it_extracts_like_the_static_one(rt, site):
    cid, es = crawl(rt, site, "js", "auto")
    assert rendering.decide(rt, cid, es) is True
    assert rt.state.blog(cid)["js"] == "all"
    # learn on the rendered JS posts, extract a JS post and its static twin with the same rules
    rules = []
    for e in es[:2]:
        raw = rt.state.cached_page(cid, e["url"])  # decide cached what it fetched
        page = rendering.page(rt, cid, e["url"], Page.from_cached(raw, e["url"]))
        assert "meadow tune" in page.html and "meadow tune" not in raw["html"]
        rules.append(learn_page(page.html, page.final_url, {"title": e["title"], "content": e["content_html"],
                                                           "authors": e["authors"], "published": e["published"]}))
    reduced = reduce_rules(rules)
    e = es[2]
    rendered = rendering.page(rt, cid, e["url"], served(rt, e["url"]))
    js_post = extract_post(rendered.html, rendered.final_url, reduced)
    static = extract_post(static_post("p2"), f"{site.url}static/p2", reduced)
    assert js_post["title"] == static["title"] == POSTS["p2"]["title"]
    assert js_post["content_text"] == static["content_text"] and "garden 6" in js_post["content_text"]
    assert js_post["published"][:10] == "2014-03-03"


def test_never_and_always(rt, site):
    cid, es = crawl(rt, site, "js", "never")
    assert rendering.decide(rt, cid, es) is False
    fetched = served(rt, es[0]["url"])
    assert rendering.page(rt, cid, es[0]["url"], fetched) is fetched
    cid, es = crawl(rt, site, "static", "always")
    assert rendering.decide(rt, cid, es) is True
    assert rt.state.blog(cid)["js"] == "all"


def test_comments_behind_load_more_from_the_rendered_page(rt, site):
    cid, es = crawl(rt, site, "js", "always")
    rendering.decide(rt, cid, es)
    e = es[1]
    page = rendering.page(rt, cid, e["url"], served(rt, e["url"]))
    assert page.how == "rendered"
    got = comments.comments_for(rt, cid, e["url"], e, page, page.root)
    assert [(c["author"], c["published"], c["content_text"]) for c in got] == \
        [(c["author"], c["published"], c["text"]) for c in COMMENTS]


def test_pages_a_browser_draws_go_to_the_render_queue(tmp_path):
    """A cluster may keep its browsers on the workers of the "render" queue (k8s/render-worker.yaml):
    a script-drawn blog's pages are sent there, a plain blog's pages never are."""
    from tests.farm import make_blog
    from tests.farm.server import FarmServer
    from tests.workers.cluster import Cluster
    from workers.embedded import WorkerProcesses

    c = Cluster(tmp_path, n=0).start()
    plain = WorkerProcesses(c.url, n=0, concurrency=2, env=c.env, log_dir=c.log_dir, queues="celery")
    render = WorkerProcesses(c.url, n=0, concurrency=2, env=c.env, log_dir=c.log_dir, queues="render")
    plain.start_one("plain@%h")
    render.start_one("render@%h")
    try:
        def pages_by_worker() -> dict:
            stats = {}
            while len(stats) < 2:  # both answer once started
                stats = c.client.control.inspect(timeout=2).stats() or {}
            return {name.split("@")[0]: s["total"].get("blogharvest.process_url", 0) for name, s in stats.items()}

        with FarmServer(make_blog("spa", seed=31, n_posts=6)) as site:
            info, records = c.crawl(site.url, timeout=180)
        assert info["state"] == "done" and len(records) == 6, info
        drawn = pages_by_worker()
        assert drawn["render"] >= 1 and drawn["plain"] == 0, drawn
        with FarmServer(make_blog("wordpress", seed=32, n_posts=6)) as site:
            info, records = c.crawl(site.url, timeout=120)
        assert info["state"] == "done" and len(records) == 6, info
        served = pages_by_worker()
        assert served["render"] == drawn["render"] and served["plain"] >= 1, served
    finally:
        plain.stop()
        render.stop()
        c.stop()
