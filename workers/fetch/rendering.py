"""JavaScript rendering of a crawl's pages (`--js auto|always|never`).

`decide` runs once per crawl at discovery (does this blog need a browser?) and
`as_drawn` is called for every fetched page of the traversal, with its URL's render need
(tasks.discover.kinds: decided once per page); it returns the page to extract from, rendered
by headless Chromium (a per-worker pool, tasks/fetch/browser.py) when the crawl needs it.
`page` does the same for a training page, its need asked here (`need`, as `queue_for`).

The decision is made on the pages as served first, with no browser: a sample page is
rendered only where its markup shows a sign that a script draws what the page lacks (the
feed's text missing from a page that has a script; for comments the signs of
tasks/extract/comment_signals.py: a count above the comments found with no further page of
them, an empty comment container, an empty element fed from a data endpoint, a "load more"
control, a frame or a <noscript> about comments; a page without any script gives none). A
blog none of whose sample pages shows a sign never starts a browser. Where one does, that
page is rendered and compared with the page as served; only when rendering shows more does
the blog render its posts (and then only the posts that show a sign). The "load more"
controls found on the rendered sample (by what they say) are clicked on every post of that
blog. A browser started for the sample is quit as soon as the decision is made when the
crawl renders nothing more, and any browser is quit once it has rendered nothing for
`BLOGHARVEST_BROWSER_IDLE` seconds.

The decision is stored in the blog's Redis hash, so every worker agrees:
`js` is "all" (the posts' content is drawn by script: render every page, listings
included, since their links may be script-drawn too), "posts" (only the comments load
by script: render post pages), or false. `--js always` is "all", `--js never` false.

Browsers are per worker process: one pool, made on first use, its idle sessions quit after
`BLOGHARVEST_BROWSER_IDLE` seconds (a later render starts one again), closed when the process
ends (celery's worker_process_shutdown, worker_shutdown, and atexit).
"""
from __future__ import annotations

import atexit
import contextlib
import json
import logging
import threading

from tasks.discover.kinds import HINTED, js_decision, render_need
from tasks.discover.urls import is_post
from tasks.fetch.http import FetchError
from tasks.extract.comment_signals import comment_area_words, more_controls, script_signals, shown_count
from tasks.fetch.page import Page
from tasks.learn.comment_blocks import learn_comment_blocks
from tasks.fetch.browser import DEFAULT_LOAD_MORE, BrowserPool, RenderError
from tasks.fetch.js_need import content_signs, entry_text, has_scripts, needs_js, page_words, widget_markers
from workers.archive import post as archive
from workers.cache import Recent
from workers.fetch.pages import page_at
from workers.settings import RENDER_QUEUE, settings

log = logging.getLogger("blogharvest")

SAMPLE = 3  # feed entries whose pages decide --js auto
WIDGET_MIN_WORDS = 20  # words a comment widget must add once rendered to make a blog render its posts
RENDER_CACHE = "rendered:"  # prefix of rendered training pages in the crawl's page cache
NOT_HERE_IDLE = 0.5  # seconds a worker that does not take the render queue keeps an unused browser


# ------------------------------------------------------------------ the process's pool

_lock = threading.Lock()
_pool: BrowserPool | None = None


def pool(rt=None) -> BrowserPool:
    """This worker process's browser pool, started on first use (SELENIUM_REMOTE_URL honoured)."""
    global _pool
    with _lock:
        if _pool is None or _pool._closed:
            s = getattr(rt, "settings", None) or settings()
            _pool = BrowserPool(size=s.browsers, max_pages=s.browser_pages,
                                page_load_timeout=s.page_load_timeout, script_timeout=s.script_timeout,
                                remote_url=s.selenium_remote_url or "", allow_private=s.allow_private,
                                max_dom_bytes=s.max_page_bytes, max_renderer_bytes=s.max_renderer_bytes,
                                request_timeout=s.request_timeout,
                                idle_timeout=s.browser_idle if renders_here() else NOT_HERE_IDLE,
                                binary=s.chromium or None, driver=s.chromedriver or None)
        return _pool


def close_pool(*_args, **_kw) -> None:
    """Quit this process's browsers (idempotent)."""
    global _pool
    with _lock:
        p, _pool = _pool, None
    if p is not None:
        p.close()


def release_browsers() -> int:
    """Quit this process's browser sessions that no render is using now (the pool stays: a
    later render starts a fresh one). The number quit."""
    with _lock:
        p = _pool
    return p.release_idle() if p is not None else 0


atexit.register(close_pool)
_render_worker = True  # this process's worker consumes the render queue (or no worker runs here)


def renders_here() -> bool:
    """Whether this process keeps a browser between pages: it runs no Celery worker (a test, a
    tool), or its worker consumes the render queue. A worker that does not (the embedded
    default's second worker) still renders what a task of its own needs drawn (the --js
    sample), but quits the browser at once after."""
    return _render_worker


def _note_queues(sender=None, instance=None, **_kw) -> None:
    global _render_worker
    try:
        _render_worker = RENDER_QUEUE in instance.app.amqp.queues.consume_from
    except AttributeError:  # pragma: no cover - a worker without queues set up
        _render_worker = True


try:  # a worker process that ends quits its browsers
    from celery.signals import celeryd_after_setup, worker_process_shutdown, worker_shutdown

    worker_process_shutdown.connect(close_pool, weak=False)
    worker_shutdown.connect(close_pool, weak=False)
    celeryd_after_setup.connect(_note_queues, weak=False)
except ImportError:  # pragma: no cover - celery is a dependency
    pass


def max_clicks() -> int:
    return settings().max_clicks


# ------------------------------------------------------------------ decision

def _raw_page(rt, crawl_id: str, url: str) -> Page | None:
    """The page as served (cached for learning), or None: unreachable (reported) or binary or not
    HTML (no vote: the traversal reports it)."""
    try:
        return page_at(rt, crawl_id, url)
    except FetchError as e:
        rt.state.add_error(crawl_id, url, e.kind, str(e))
        return None


def script_hints(page: Page) -> list[str]:
    """tasks.extract.comment_signals.script_signals of a page, on its one parse (its markup for
    what the parse drops: scripts, frames' attributes, <noscript>), and the markers of the
    comment systems tasks.fetch.js_need knows, in a page that has a script."""
    signs = script_signals(page.root, raw=page.html, url=page.final_url or page.url)
    if has_scripts(page.html):
        signs += [f"markup of a comment system ({name})" for name in widget_markers(page.html)]
    return signs


NO_BROWSER = ("rendering is off: no Chromium or chromedriver on this machine; pages are read as "
              "served. Install Debian's chromium and chromium-driver, or set SELENIUM_REMOTE_URL.")


def render_failed(rt, crawl_id: str, url: str, err: RenderError, note: str = "") -> None:
    """A page's render error goes to the report; a missing (or unguarded, refused) browser is
    said once, as a warning."""
    if err.kind == "unavailable":
        said = NO_BROWSER if err.warning == "no-browser" else err.message
        if rt.state.warn(crawl_id, err.warning, said):
            log.warning("crawl %s: %s", crawl_id, said)
        return
    rt.state.add_error(crawl_id, url, "render", f"{err}{note}")


CONTENT_GAIN = 2  # an entry without text: rendering must show this many times the words served ...
CONTENT_MIN_WORDS = 50  # ... and this many more


def _content_vote(rt, crawl_id: str, e: dict, page: Page, reasons: list) -> bool:
    """The feed's text is missing from the page as served (which has a script to draw it) and
    present once rendered; for an entry without text, the page shows signs that a script draws
    its content (tasks.fetch.js_need.content_signs) and rendering multiplies its words."""
    if not has_scripts(page.html):
        return False
    if not entry_text(e):
        return _content_gain(rt, crawl_id, e, page, reasons)
    if not needs_js(page.html, e):
        return False
    rendered = _rendered_or_none(rt, crawl_id, e["url"], page)
    if rendered is not None and needs_js(page.html, e, rendered.html):
        reasons.append(f"{e['url']}: the feed's text appears only once rendered")
        return True
    return False


def _rendered_or_none(rt, crawl_id: str, url: str, served: Page):
    """The page drawn by the browser, or None where it could not be (reported)."""
    try:
        return _render(rt, crawl_id, url, served=served, pictures=False)
    except RenderError as err:
        render_failed(rt, crawl_id, url, err)
        return None


def _content_gain(rt, crawl_id: str, e: dict, page: Page, reasons: list) -> bool:
    signs = content_signs(page.html)
    rendered = _rendered_or_none(rt, crawl_id, e["url"], page) if signs else None
    if rendered is None:
        return False
    served, drawn = len(page_words(page.html)), len(page_words(rendered.html))
    if drawn >= CONTENT_GAIN * served + CONTENT_MIN_WORDS:
        reasons.append(f"{e['url']}: {'; '.join(signs[:2])}; {served} words served, {drawn} once rendered")
        return True
    return False


def _comments_gain(rt, crawl_id: str, e: dict, page: Page, reasons: list) -> bool:
    """A sample post whose page as served shows a sign of script comments, rendered: does the
    browser see more? Its "load more" controls are learned for the blog, and the post rendered
    again with them. A page with no sign is not rendered."""
    hints = script_hints(page)
    if not hints:
        return False
    try:
        rendered = _render(rt, crawl_id, e["url"], served=page, pictures=False)
        controls = [c for c in more_controls(rendered.root) if c not in DEFAULT_LOAD_MORE]
        if controls and not (rt.state.blog(crawl_id).get("js_load_more")):
            rt.state.save_blog(crawl_id, js_load_more=controls)
            rendered = _render(rt, crawl_id, e["url"], fresh=True, served=page, pictures=False)
    except RenderError as err:
        render_failed(rt, crawl_id, e["url"], err)
        return False
    gained = _gain(page, rendered)
    hint = "; ".join(hints[:3])
    if gained >= WIDGET_MIN_WORDS:
        reasons.append(f"{e['url']}: comments by script ({hint}; more once rendered)")
        return True
    reasons.append(f"{e['url']}: rendering showed nothing more ({hint})")
    return False


def _comments_on(page: Page) -> int:
    rule = learn_comment_blocks([(page.root, None)])
    return rule["matched"] if rule else 0


def _gain(static: Page, rendered: Page) -> int:
    """What rendering adds to the comments: the repeated comment blocks it adds, or, where
    the page shows more comments than it holds (one comment: no repeat to learn), the words it
    adds to the parts of the page named for comments (a cookie notice or a sidebar widget
    drawn elsewhere is no comment), or to the whole page where no part is named so."""
    before, after = _comments_on(static), _comments_on(rendered)
    if after > before:
        return WIDGET_MIN_WORDS + after - before
    if shown_count(static.root) > before:
        named = comment_area_words(rendered.root), comment_area_words(static.root)
        if any(named):  # the page names its comments' part: what rendering adds there
            return named[0] - named[1]
        return len(page_words(rendered.html)) - len(page_words(static.html))  # no part is named: the whole page
    return 0


def _forced(st, crawl_id: str):
    mode = (st.options(crawl_id).get("js") or "auto").lower()
    if mode == "never":
        st.save_blog(crawl_id, js=False, js_reason="--js never")
        return False
    if mode == "always":
        st.save_blog(crawl_id, js="all", js_reason="--js always")
        return True
    return None


KEPT = "kept from the blog's earlier crawl: "


def _earlier(st, crawl_id: str):
    """An update crawl keeps the --js auto decision an earlier crawl of the blog made on its
    pages (issue 35: sampling again rendered three posts, with their scripts and styles, on
    every scheduled update of a blog that shows a sign); None where there is none to keep (the
    blog's first crawl, a full crawl, a decision forced by --js never/always)."""
    if not st.options(crawl_id).get("update"):
        return None
    blog = st.blog(crawl_id)
    by = blog.get("js_by")
    if "js" not in blog or not by or by == crawl_id:
        return None
    reason = str(blog.get("js_reason") or "")
    st.save_blog(crawl_id, js_by=crawl_id, js_reason=reason if reason.startswith(KEPT) else KEPT + reason)
    log.info("crawl %s: --js auto kept %s from crawl %s", crawl_id, blog["js"], by)
    return bool(blog["js"])


_held = threading.local()  # .pools: the pools decide() holds in this thread (None: not deciding)


@contextlib.contextmanager
def _sample_held():
    """While the block runs, a pool this thread renders with is held (BrowserPool.held): the
    sample's pages rendered in one session. No pool is made for it: a blog none of whose
    sample pages shows a sign starts no browser."""
    _held.pools = []
    try:
        yield
    finally:
        pools, _held.pools = _held.pools, None
        for cm in pools:
            cm.__exit__(None, None, None)


def _hold(p: BrowserPool) -> None:
    pools = getattr(_held, "pools", None)
    if pools is not None and not pools:
        cm = p.held()
        cm.__enter__()
        pools.append(cm)


def decide(rt, crawl_id: str, entries: list[dict]) -> bool:
    """Whether this crawl renders pages (the entries' pages as served read from the cache or fetched).

    --js auto looks at a few entries' pages as served: content missing there but present
    once rendered means "all"; comments that a browser sees and the page as served does
    not (rendered where the page shows a sign of them) mean "posts". At most SAMPLE pages are
    rendered here (one more when a "load more" control was learned), and only those whose
    markup shows a sign: where none does, no browser is started. A browser started here is
    quit at once when the crawl renders nothing more.
    """
    st = rt.state
    forced = _forced(st, crawl_id)
    if forced is not None:
        return forced
    kept = _earlier(st, crawl_id)
    if kept is not None:
        return kept
    sample = [e for e in entries if e.get("url") and (e.get("content_html") or e.get("summary_html"))][:SAMPLE]
    if not sample:  # entries without text (no feed, or an empty one): the pages' own signs decide
        sample = [e for e in entries if e.get("url")][:SAMPLE]
    content_votes, script_comments, reasons = 0, False, []
    with _sample_held():  # the sample's renders in one session (a blog's assets fetched once)
        for e in sample:
            page = _raw_page(rt, crawl_id, e["url"])
            if page is None:
                continue
            content_votes += _content_vote(rt, crawl_id, e, page, reasons)
            if not script_comments:
                script_comments = _comments_gain(rt, crawl_id, e, page, reasons)
    if content_votes and content_votes * 2 >= len(sample):
        js = "all"
    elif script_comments:
        js = "posts"
    else:
        js = False
    st.save_blog(crawl_id, js=js, js_by=crawl_id, js_reason="; ".join(reasons[:4]) or
                 "the pages as served hold the feed's text and show no sign of comments drawn by script")
    if not js or not renders_here():
        release_browsers()  # one started for the sample: this crawl needs it no more (or not here)
    log.info("crawl %s: --js auto decided %s", crawl_id, js)
    return bool(js)


# ------------------------------------------------------------------ rendering

def cached_rendering(rt, crawl_id: str, url: str) -> Page | None:
    """The rendering of a training page `url` that learning cached, if any."""
    cached = rt.state.cached_page(crawl_id, RENDER_CACHE + url)
    return None if cached is None else Page.rendered(url, cached.get("url"), cached.get("html"))


def _render(rt, crawl_id: str, url: str, fresh: bool = False, served: Page | None = None,
            pictures: bool = True) -> Page:
    """Render `url` (a training page's rendering is cached, learning and traversal share it),
    clicking the known "load more" controls and those learned for this blog. `served`: the
    page as the crawler read it, given to the browser for `url` (not asked of the blog twice);
    `pictures=False`: a render that only decides (the --js sample) fetches no images, fonts, media, styles."""
    st = rt.state
    cached = None if fresh else cached_rendering(rt, crawl_id, url)
    if cached is not None:
        return cached
    learned = tuple(st.blog(crawl_id).get("js_load_more") or ())
    _hold(pool(rt))
    document = served.html if served is not None and not served.garbled and url in (served.final_url, served.url) \
        and served.how != "rendered" else None
    out = pool(rt).render(url, load_more_selectors=DEFAULT_LOAD_MORE + learned, max_clicks=max_clicks(),
                          document=document, pictures=pictures)
    page = Page.rendered(url, out["url"], out["html"])
    if st.entry(crawl_id, url) is not None:
        st.cache_page(crawl_id, RENDER_CACHE + url, page.cached())
    for refused in [r for r in out.get("refused") or [] if r["kind"] == "private_address"]:
        st.add_error(crawl_id, url, "browser_refused",
                     f"the browser's request was refused: {refused['kind']}: {refused['message']} <{refused['url']}>")
    # what the browser fetched (Response.to_dict() each) goes into the WARC now, whether this
    # rendering was for the --js decision, learning or extraction: a replay needs them all
    archive.on_resources(rt, crawl_id, url, out.get("resources") or [])
    return page


_decided = Recent(4096)  # crawl id -> its js decision (made once, at discovery): a cache


def decision(rt, crawl_id: str):
    """The crawl's js decision: "all", "posts" or False."""
    js = _decided.get(crawl_id)
    if js is None:
        js = rt.state.r.hget(rt.keys(crawl_id).blog, "js")
        if js is None:  # not decided yet, or a crawl that never went through decide
            return js_decision({}, rt.state.options(crawl_id))
        js = _decided[crawl_id] = json.loads(js)
    return js


def need(rt, crawl_id: str, url: str) -> str | None:
    """tasks.discover.kinds.render_need of a page whose kind no caller decided (a page sent to
    its queue, a training page): its URL asked of the state here."""
    js = decision(rt, crawl_id)
    if js != "posts":
        return render_need(js, False)
    pattern, listed = rt.state.pattern_and_listed(crawl_id, url)  # not the whole blog hash (its rules)
    return render_need(js, listed or bool(pattern and is_post(url, pattern)))


def queue_for(rt, crawl_id: str, url: str) -> str | None:
    """The queue of a page's task: RENDER_QUEUE when a browser will draw it (workers that
    consume only that queue may be the ones with browsers), None for the default queue."""
    return RENDER_QUEUE if need(rt, crawl_id, url) else None


def page(rt, crawl_id: str, url: str, fetched):
    """The page to extract from where no caller decided the URL's kind (a training page):
    `fetched` (a Page) itself, or its rendered DOM, by its `need`."""
    render = need(rt, crawl_id, url)
    return fetched if render is None else as_drawn(rt, crawl_id, url, fetched, render)


def as_drawn(rt, crawl_id: str, url: str, fetched: Page, render: str | None) -> Page:
    """The page to extract from under its URL's render need (tasks.discover.kinds.UrlKind.render):
    `fetched` itself, or its rendered DOM."""
    if render is None or (render == HINTED and not script_hints(fetched)):
        return fetched  # read as served (a post: nothing on it hints at comments by script)
    try:
        rendered = _render(rt, crawl_id, fetched.final_url or url, served=fetched)
        # the DOM as extracted and what the browser fetched for it ("resources"), into the WARC
        archive.on_rendered(rt, crawl_id, url, rendered)
        return rendered
    except RenderError as e:
        render_failed(rt, crawl_id, url, e, " (extracting from the page as served)")
        return fetched
